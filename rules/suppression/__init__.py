"""Rules about suppression comments (`# bot: ignore[ID] reason`) in any linted file."""
