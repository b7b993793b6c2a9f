"""The real agents, end to end: a scripted model server, the agents launched headless, the tests."""
