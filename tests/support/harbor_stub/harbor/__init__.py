"""Stand-in for the Harbor 0.20 API surface fiable-agent's harness templates use (tests only, not Harbor).

It mirrors Harbor 0.20's classes closely enough that a harness cannot tell the difference: ``Trial`` runs the
real lifecycle (environment start, ``BaseInstalledAgent.setup`` → ``install()``, ``run()``, the download of
``/logs/agent``, the session → ``agent/trajectory.json`` conversion, the verifier, ``result.json``), and
``ClaudeCode`` runs the real setup and launch commands of a trial. The container itself is
``container.NamespaceContainer`` beside this package (a private mount namespace, not Docker).
"""
