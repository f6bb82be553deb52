<SPORTS_EVENT-ABC19980307.1830.1415-1> :=
    S_EVENT: "Iditarod dog sled race" ##277#299#
    LOCATION: "Anchorage,... <ANNOTATION>  (voice-over)  </ANNOTATION> ...Alaska" ##177#242#
    COMMENT: "the annotation inside the fill is whited out (seed 000)"

<SPORTS_EVENT-PRI19980302.2000.2923-1> :=
    S_EVENT: "African cup of nation soccer tournament" ##163#202#
    WINNER: "Egypt" ##139#144#
    LOSER: "defending champion [south Africa]" ##242#273#261#273#
    SCORE: "2-0" ##274#277#
