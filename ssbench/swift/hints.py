"""One-line errors for the master's own container requests (creating them
before a run, listing them for cleanup) that say what the user must fix:
the token, the storage URL or the storage policy."""
from __future__ import absolute_import, division, print_function

from ssbench.errors import SsbenchError, SwiftError


def explain(exc, doing, policy=None):
    """The error to raise for `exc`, which ended `doing` (e.g. 'cannot
    create containers'): a request that failed for good (a
    ssbench.store.outcome.SwiftRequestError) gets a hint; `policy` is the
    storage policy the request asked for, if any."""
    if not hasattr(exc, 'http_status'):
        if isinstance(exc, SsbenchError):
            return exc      # already one line that says what is wrong
        return SwiftError('%s: %s: %s' % (doing, type(exc).__name__, exc))
    status = exc.http_status
    if status is None:
        hint = 'check the storage URL (-S, or the one the auth server ' \
               'returns)'
    elif status == 401:
        hint = 'Swift refused the token: give a valid one (-T) or ' \
               'credentials to authenticate with'
    elif status == 403:
        hint = 'the account may not do this: use a user that may create ' \
               'and delete containers'
    elif status == 400 and policy and exc.method == 'PUT':
        # Swift answers 400 to a container PUT naming a storage policy it
        # does not have (or has deprecated); ssbench's names are valid.
        return SwiftError(
            '%s: unknown storage policy %r (%s); name one the cluster has '
            'with --policy (or "policy" in the scenario)' % (
                doing, policy, exc))
    else:
        return SwiftError('%s: %s' % (doing, exc))
    return SwiftError('%s: %s; %s' % (doing, exc, hint))
