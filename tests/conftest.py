pytest_plugins = ["tests.mailservers"]
