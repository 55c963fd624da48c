"""Replays: Codex sessions as notebooks, and recordings of nested tool calls (client layer)."""
