"""Test stand-in for the Harbor 0.20 API surface fiable-agent's harness templates use (not Harbor)."""
