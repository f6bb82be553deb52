<SPORTS_EVENT-story1-1> :=
    S_EVENT: "iditarod dog sled race" ##129#151#
    LOCATION: "anchorage alaska" ##53#69#

<SPORTS_EVENT-story2-1> :=
    S_EVENT: "african cup of nations soccer tournament" ##195#235#
    LOSER: "champion south africa" ##306#346#
    SCORE: "two zero" ##347#355#
