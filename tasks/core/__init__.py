"""tasks/core"""
