"""Stand-in for Hermes Agent's agent.terminal_env_provider, written from
its documented contract (the terminal environment provider plugin
guide): the attributes and methods a provider may override, with their
defaults."""


class TerminalEnvironmentProvider:
    name = ""
    display_name = ""
    is_remote = False
    is_container = False
    skip_container_guards = False

    @property
    def description(self):
        return ""

    def is_available(self):
        return True

    def probe(self):
        return {"ok": self.is_available(), "detail": ""}

    def doctor_checks(self):
        return []

    def setup_instructions(self):
        return ""

    def get_config_schema(self):
        return {}

    def create_environment(self, *, cwd, timeout, task_id="default", **kwargs):
        raise NotImplementedError
