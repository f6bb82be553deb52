"""tasks/muc"""
