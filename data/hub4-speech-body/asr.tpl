<SPORTS_EVENT-ABC19980307.1830.1415-1> :=
    S_EVENT: "iditarod dog sled race" ##200#222#
    LOCATION: "anchorage alaska" ##142#158#

<SPORTS_EVENT-PRI19980302.2000.2923-1> :=
    S_EVENT: "african cup of nations soccer tournament" ##131#171#
    LOSER: "champion south africa" ##223#244#
    SCORE: "two zero" ##245#253#
