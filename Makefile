# bwpolicy: `make setup` once (root, Debian bookworm), then `make test`.

export PATH := $(PATH):/usr/local/go/bin

GO          ?= go
SYSTEM_BWRAP = /usr/bin/bwrap
BWRAP_0_12   = $(CURDIR)/.cache/bwrap-0.12.0/bwrap

.PHONY: setup test build

setup:
	.ci/setup.sh

# 1. every package, with the system bwrap (0.8.0 on bookworm);
# 2. the real-sandbox tests again, with bwrap 0.12.0.
test:
	@test -x "$(SYSTEM_BWRAP)" || { echo "error: $(SYSTEM_BWRAP) not found; run 'make setup'" >&2; exit 1; }
	BWPOLICY_BWRAP=$(SYSTEM_BWRAP) $(GO) test -count=1 ./...
	@test -x "$(BWRAP_0_12)" || { echo "error: $(BWRAP_0_12) not found; run 'make setup'" >&2; exit 1; }
	@if [ -d sandboxtest ]; then \
		echo 'BWPOLICY_BWRAP=$(BWRAP_0_12) $(GO) test -count=1 ./sandboxtest/...'; \
		BWPOLICY_BWRAP="$(BWRAP_0_12)" $(GO) test -count=1 ./sandboxtest/...; \
	else \
		echo "NOTICE: ./sandboxtest does not exist yet; skipping the bwrap 0.12.0 run"; \
	fi

build:
	$(GO) build -o bin/ ./cmd/...
