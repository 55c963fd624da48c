"""How long the kernel gives the runtime host to answer before it checks that the host lives.

A host answers terminates and ``operation/yield`` within milliseconds, and one that cannot
stop a cell in-process answers within half a second. A host that was stopped (``kill -STOP``)
or deadlocked never answers; the client's own liveness probe would notice only after about
11 s. So where a user waits on the host (an interrupt, ``%terminate``, ``%wait``'s deadline),
the kernel waits :data:`ANSWER_S`, then probes the host itself
(``CodeModeSession.probe_host``, at most :data:`PROBE_S`): an unanswered probe fails the
connection at once, and every request pending on it with it.
"""

ANSWER_S = 0.5
"""How long the kernel waits for the host's answer before probing the host."""
PROBE_S = 0.4
"""How long the host may take to answer that probe before its connection fails."""
FAILED_S = 0.1
"""How long, after a failed probe, a caller may take to see the failure of its request."""
