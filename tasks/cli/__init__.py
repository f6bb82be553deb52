"""tasks/cli"""
