"""tasks/campaign"""
