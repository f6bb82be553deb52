"""Campaigns over any scorer family: campaign files, the one list of campaign kinds, statistics
(bootstrap intervals, paired significance, Holm's correction), leaderboards and the HTML page. It sits
above the families and uses each through its package's public names; no family imports it."""
