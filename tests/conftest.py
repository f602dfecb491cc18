pytest_plugins = ["tests.mailservers", "tests.pgserver"]
