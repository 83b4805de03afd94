package facts

import "slices"

// This file holds the home layout's built-in allowed entries (H10): the
// dot entries of HOME that tools read and that hold no credentials of
// their own, bound back read-only in the allowlist layout. Credentials
// inside them (a token in ~/.cache/huggingface) are masked by the denied
// set, which always wins.

// HomeCacheFresh are the entries of ~/.cache that tools write on every
// build or install (Go's build cache, pip's, uv's, the JavaScript
// package managers', Deno's, Bazel's output): the layout leaves the
// host's out, so each command finds each of them an empty tmpfs of its
// own (~/.cache itself is read-only), writable for that command only. Nothing a
// command caches reaches the host or the next command, and the tools
// work (Go fails on a read-only build cache).
var HomeCacheFresh = []string{"go-build", "pip", "uv", "yarn", "pnpm", "deno", "bazel"}

// HomeCacheShown are the entries of ~/.cache bound back read-only: what
// a build or a test run reads there and does not rebuild on each run
// (browser builds, native headers, tool environments, downloaded
// models). Every other entry of ~/.cache is left out (absent), whatever
// it holds: a CLI's login (gh/hosts.yml), an agent's logs
// (claude-cli-nodejs/…/mcp-logs-*), a browser's profile. home.allow
// brings one back (.cache/NAME).
var HomeCacheShown = []string{
	"ms-playwright", "ms-playwright-go", "puppeteer", "Cypress", "electron", "electron-builder", "node-gyp",
	"typescript", "prisma", "bazelisk", "pre-commit", "pypoetry", "pipenv", "hatch", "pdm", "virtualenv",
	"coursier", "sccache", "ccache", "golangci-lint", "staticcheck", "huggingface", "torch", "fontconfig",
	"matplotlib", "mise", "zig", "vcpkg", "composer", "rebar3",
}

// cacheShown reports whether the entry name of ~/.cache is bound back
// (HomeCacheShown); the fresh ones (HomeCacheFresh) never are.
func cacheShown(name string) bool {
	return slices.Contains(HomeCacheShown, name) && !slices.Contains(HomeCacheFresh, name)
}

// HomeAllowedLeft are the parts of allowed entries that are hidden
// whatever their content: logs that record command lines, registry
// URLs with tokens and request headers.
var HomeAllowedLeft = []string{".npm/_logs", ".gradle/daemon", ".yarn/berry/logs"}

// HomeAllow is one built-in allowed entry, relative to HOME.
type HomeAllow struct {
	Path string
	What string
}

// HomeAllowed are the built-in allowed entries, one row each.
var HomeAllowed = []HomeAllow{
	{".profile", "login shell start-up"},
	{".bashrc", "bash start-up"},
	{".bash_profile", "bash login start-up"},
	{".bash_login", "bash login start-up"},
	{".bash_logout", "bash logout"},
	{".bash_aliases", "bash aliases (read by .bashrc)"},
	{".zshrc", "zsh start-up"},
	{".zshenv", "zsh start-up"},
	{".zprofile", "zsh login start-up"},
	{".zlogin", "zsh login start-up"},
	{".inputrc", "readline key bindings"},
	{".editorconfig", "editor settings"},
	{".vimrc", "vim settings"},
	{".tmux.conf", "tmux settings"},
	{".gitconfig", "git's user configuration (name, email, aliases)"},
	{".gitignore_global", "git's global ignore file"},
	{".config/git", "git's user configuration (XDG); credentials inside stay denied"},
	{".cache", "tool caches: rebuilt and read-only, each entry read-only but the build caches of HomeCacheFresh, each a fresh writable tmpfs; tokens inside stay denied"},
	{".cargo", "Rust toolchain and crates; credentials stay denied"},
	{".rustup", "Rust toolchains"},
	{".nvm", "Node version manager"},
	{".npm", "npm's cache"},
	{".pyenv", "Python version manager"},
	{".rbenv", "Ruby version manager"},
	{".asdf", "asdf version manager"},
	{".volta", "Volta Node toolchains"},
	{".bun", "Bun runtime"},
	{".deno", "Deno runtime"},
	{".sdkman", "SDKMAN toolchains"},
	{".m2", "Maven repository; settings.xml stays denied"},
	{".gradle", "Gradle caches; gradle.properties stays denied"},
	{".conda", "conda environments"},
	{".condarc", "conda settings"},
	{".local/bin", "user programs on PATH"},
	{".local/lib", "user libraries (pip --user)"},
	{".local/include", "user headers"},
	{".config/pip", "pip settings"},
	{".config/uv", "uv settings"},
	{".config/npm", "npm settings"},
	{".config/pnpm", "pnpm settings"},
	{".config/yarn", "yarn settings"},
	{".config/go", "go env settings"},
	{".config/fontconfig", "font settings"},
}

// HermesDenied are the paths Hermes' own bubblewrap backend denies in
// its home layout. Every one is in the denied set (the profile's
// hidden_home and CredentialStores; a test holds this), in both layouts.
var HermesDenied = []string{
	".ssh", ".gnupg", ".gpg", ".aws", ".azure", ".boto", ".s3cmd", ".kube", ".docker",
	".netrc", ".npmrc", ".pypirc", ".pgpass", ".env", ".git-credentials", ".git-credential-cache",
	".password-store", ".pki", ".vaults", ".cert", ".terraform.d",
	".config/gcloud", ".config/gh", ".config/hub", ".config/glab-cli", ".config/op", ".config/rclone",
	".config/keybase", ".config/msmtp", ".config/1Password", ".config/Bitwarden", ".config/keepassxc",
	".config/filezilla", ".config/remmina", ".config/git/credentials", ".config/google-chrome",
	".config/chromium", ".config/BraveSoftware", ".config/microsoft-edge", ".config/vivaldi",
	".local/share/keyrings", ".local/share/kwalletd", ".local/share/plasma-vault", ".local/share/pki",
	".cargo/credentials", ".cargo/credentials.toml", ".m2/settings.xml", ".gradle/gradle.properties",
	".cache/huggingface/token",
}
