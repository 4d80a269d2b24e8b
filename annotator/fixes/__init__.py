"""Fix effort: reading the pull requests and commits that fixed an issue (pure parts)."""
