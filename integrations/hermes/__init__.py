"""bwpolicy: a Hermes Agent terminal backend plugin.

Every command runs through ``bwrun`` in the invocation ``bwpolicy compile``
froze for this environment (``--sandbox-id``): the host read-only, the
working directory writable, credentials hidden, limits set. Each run is
proven by bwrun's status channel with a nonce the plugin chose; a run
without proof is an error. Standard library only.
"""

from .provider import BwpolicyProvider, SYSTEM_PROMPT
from .versions import check_versions

__all__ = ["BwpolicyProvider", "SYSTEM_PROMPT", "register"]


def register(ctx):
    """Register the provider, and its system-prompt section when the
    Hermes build offers one. A version skew between the plugin, bwpolicy
    and bwrun is recorded on the provider: it then reports itself
    unavailable with the fix, and creating an environment fails."""
    provider = BwpolicyProvider(skew=check_versions())
    ctx.register_terminal_environment_provider(provider)
    add_section = getattr(ctx, "register_system_prompt_section", None)
    if callable(add_section):
        try:
            add_section("bwpolicy", SYSTEM_PROMPT)
        except TypeError:
            add_section(SYSTEM_PROMPT)
    return provider
