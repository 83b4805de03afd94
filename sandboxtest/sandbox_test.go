package sandboxtest

import (
	"sync"
	"testing"
	"time"
)

// scenario is one table entry of TestSandbox: it runs once per identity
// (TestSandbox/root/NAME, TestSandbox/user/NAME), each time on a fresh
// fixture.
type scenario struct {
	name string
	run  func(t *testing.T, f *fixture)
}

// scenarios: the S properties, the R rules that change what a command
// can do, and H1, H2, H4, H5. Each proves both sides in one sandbox: the
// forbidden thing fails (and the host is unchanged afterwards), the
// allowed thing works.
var scenarios = []scenario{
	{"S1_memory_limit", testMemoryLimit},
	{"S1_cpu_limit", testCPULimit},
	{"S1_process_limit", testProcessLimit},
	{"S2_network_none_workspace", testNetworkNone},
	{"S2_network_shared_network", testNetworkShared},
	{"S2_host_processes", testHostProcesses},
	{"S2_dies_with_parent", testDiesWithParent},
	{"S3_S9_writes", testWrites},
	{"S3_tmp_fresh_per_command", testTmpFresh},
	{"S3_tmpfs_bounded_dev_read_only", testTmpfsBounds},
	{"S4_agent_sockets", testAgentSockets},
	{"S4_H5_environment", testEnvironment},
	{"S4_unset_after_rc", testUnsetAfterRC},
	{"S5_hidden_credentials", testHiddenCredentials},
	{"S5_hidden_writes_stay_in_sandbox", testHiddenWrites},
	{"S5_credential_created_after_compile", testCredentialCreatedLater},
	{"S5_hermes_home_elsewhere", testHermesHomeElsewhere},
	{"S6_home_mode_profile", testHomeModeProfile},
	{"S6_sandbox_envs", testSandboxEnvs},
	{"S6_expose", testExpose},
	{"S6_expose_pinned", testExposePinned},
	{"S6_scratch_linked_hermes_home", testScratchLinkedHermesHome},
	{"H10_cwd_layout_dir_restricted", testCwdLayoutDirRestricted},
	{"S6_staged_session", testStagedSession},
	{"S7_pins_cwd_home", testPins},
	{"S8_ca_bundle", testCABundle},
	{"S9_restricted", testRestricted},
	{"S9_missing_cwd", testMissingCwd},
	{"S9_binds", testBinds},
	{"S10_no_bwrap_no_command", testNoBwrap},
	{"S11_background_dies", testBackgroundDies},
	{"S11_pid1_takeover", testPid1Takeover},
	{"status_channel", testStatusChannel},
	{"status_signaled", testStatusSignaled},
	{"timeout", testTimeout},
	{"chdir_option", testChdirOption},
	{"exit_status", testExitStatus},
	{"hermes_config_yaml", testHermesConfig},
	{"custom_profile", testCustomProfile},
	{"R1_bind_under_hidden", testR1},
	{"R2_bind_contains_hidden_elsewhere", testR2},
	{"R4_dest_under_tmp", testR4Tmp},
	{"R6_process_dir_under_hermes", testR6Fallback},
	{"R11_bind_contains_hidden_same_place", testR11},
	{"R12_limit_clamped", testR12Clamp},
	{"R_refused_never_run", testRefused},
	{"H1_nested_userns", testNestedUserns},
	{"H2_seccomp", testSeccomp},
	{"H3_landlock_network", testLandlockNetwork},
	{"H3_landlock_bypasses", testLandlockBypasses},
	{"H4_hide_globs", testHideGlobs},
	{"H4_hide_globs_own_writes_not_stale", testHideGlobsOwnWrites},
	{"H8_user_sockets", testUserSockets},
	{"H7_startup_secret", testStartupSecret},
	{"H7_rc_command_lines", testRcCommandLines},
	{"H7_allowed_contents", testAllowedContents},
	{"H7_rc_variants", testRcVariants},
	{"H7_allowed_unread", testAllowedUnread},
	{"H7_allowed_stores", testAllowedStores},
	{"H7_credential_locations", testCredentialLocations},
	{"H7_xdg_relocated", testXDGRelocated},
	{"H7_credential_out_of_reach", testCredentialOutOfReach},
	{"H9_protected_entries", testProtectedEntries},
	{"invocation_trust", testInvocationTrust},
	{"H5_env_secrets", testEnvSecrets},
	{"S_stdio_reopen", testStdioReopen},
	{"S1_nofile", testNoFileLimit},
	{"H7_credential_files", testCredentialFiles},
	{"H7_second_mount", testSecondMount},
	{"H4_hide_tracked_by_git", testHideTracked},
	{"H9_git_indirection", testGitIndirection},
	{"H9_startup_planted", testStartupPlanted},
	{"H9_git_indirection_bound", testGitIndirectionBound},
	{"H9_git_user_keys_kept", testGitUserKeysKept},
	{"H9_git_decoys_accepted", testGitDecoysAccepted},
	{"H9_git_nested_indirections_bound", testGitNestedIndirectionsBound},
	{"H9_git_unresolved_carried", testGitUnresolvedCarried},
	{"H9_git_staged_across_recompile", testGitStagedAcrossRecompile},
	{"H9_ledger_staged_in_non_repo", testLedgerStagedInNonRepo},
	{"H9_ledger_kill_phases", testLedgerKillPhases},
	{"H9_ledger_links_into_git", testLedgerLinksIntoGit},
	{"H9_ledger_seventy_repos", testLedgerSeventyRepos},
	{"H9_ledger_invocation_symlink", testLedgerInvocationSymlink},
	{"H9_ledger_scan_budget", testLedgerScanBudget},
	{"H9_ledger_config_identity", testLedgerConfigIdentity},
	{"H9_watch_plants", testWatchPlants},
	{"H9_watch_lost", testWatchLost},
	{"H9_watch_killed_scan", testWatchKilledScan},
	{"H9_watch_socket_peer", testWatchSocketPeer},
	{"S_serve_runtime", testServeRuntime},
	{"H9_protection_under_foreign_bind", testProtectionUnderForeignBind},
	{"H9_moved_bind_protected", testMovedBindProtected},
	{"H9_profile_home_rc", testProfileHomeRC},
	{"H9_cwd_in_profile_home", testCwdInProfileHome},
	{"H9_python_site_hooks", testPythonSiteHooks},
	{"H9_git_workflow", testGitWorkflow},
	{"H9_git_compile_time_binds", testGitCompileTimeBinds},
	{"H9_protect_git_read_only", testProtectGitReadOnly},
	{"H10_denied_paths_absent", testDeniedPathsAbsent},
	{"H10_unknown_entries_absent", testUnknownEntriesAbsent},
	{"H10_new_entries_after_compile", testNewEntriesAfterCompile},
	{"H10_entry_swapped_after_compile", testEntrySwappedAfterCompile},
	{"H10_path_tool_under_home", testPathToolUnderHome},
	{"H10_git_reads_gitconfig", testGitReadsGitconfig},
	{"H10_no_host_creation", testNoHostCreation},
	{"H10_home_allow", testHomeAllow},
	{"H10_cwd_left_out_refused", testCwdLeftOutRefused},
	{"H10_symlinked_dotfile", testSymlinkedDotfile},
	{"H10_denied_chain_relink", testDeniedChainRelink},
	{"H10_startup_chain_dangling", testStartupChainDangling},
	{"H10_hf_stored_tokens", testHFStoredTokens},
	{"H10_pip_npm_cache", testPipNpmCache},
	{"H10_allow_inside_denied", testAllowInsideDenied},
	{"H10_passwd_home", testPasswdHome},
	{"H9_path_dirs_protected", testPathDirsProtected},
	{"H9_startup_vars_protected", testStartupVarsProtected},
	{"H9_env_checked_stale", testEnvCheckedStale},
	{"H9_startup_link_replaced", testStartupLinkReplaced},
	{"H9_startup_file_vars", testStartupFileVars},
	{"H9_config_bound_elsewhere", testConfigBoundElsewhere},
	{"H9_hgrc_protected", testHgrcProtected},
	{"H10_dot_link_target_held", testDotLinkTargetHeld},
	{"H10_home_writes_fail", testHomeWritesFail},
	{"S6_scratch_not_shared", testScratchNotShared},
	{"S9_cwd_gone_and_back", testCwdGoneAndBack},
	{"S6_staged_hide", testStagedHide},
	{"H10_binds_hermes_accepts", testBindsHermesAccepts},
	{"S6_hermes_secrets_tail", testHermesSecretsTail},
}

// bindsSockets names the scenarios that bind Unix sockets in the file
// system (greetingListener on a path); hostSockets keeps every other
// scenario out while one runs.
var (
	bindsSockets = map[string]bool{"H8_user_sockets": true, "H7_credential_locations": true, "S6_scratch_not_shared": true}
	hostSockets  sync.RWMutex
)

func TestSandbox(t *testing.T) {
	if skipAll != "" {
		t.Skip(skipAll)
	}
	t.Logf("bwrap %s (%s)", bwrapPath, bwrapVersion)
	ids, err := identities()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	t.Cleanup(func() { t.Logf("all scenarios: %v", time.Since(start).Round(time.Millisecond)) })
	for _, id := range ids {
		t.Run(id.name, func(t *testing.T) {
			t.Parallel()
			idStart := time.Now()
			t.Cleanup(func() { t.Logf("%s (uid %d): %v", id.name, id.uid, time.Since(idStart).Round(time.Millisecond)) })
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					t.Parallel()
					// A socket one scenario binds in the file system is a
					// user socket every compile meanwhile records (H8), and
					// its removal makes those invocations stale: the
					// scenarios that bind one run alone.
					if bindsSockets[sc.name] {
						hostSockets.Lock()
						defer hostSockets.Unlock()
					} else {
						hostSockets.RLock()
						defer hostSockets.RUnlock()
					}
					sc.run(t, newFixture(t, id))
				})
			}
		})
	}
}
