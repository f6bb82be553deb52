"""Campaigns over any scorer family: campaign files, the family registry, statistics (bootstrap intervals,
paired significance), leaderboards and the HTML page. It sits above the families and imports them;
no family imports it."""
