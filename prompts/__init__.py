"""Prompt templates and interviewer phrasings, loaded by name (see agent/prompts.py)."""
