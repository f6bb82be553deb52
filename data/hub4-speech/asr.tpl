<ENTITY-S1-1> :=
    NAME: "general motors" ##43#57#
    LOCATION: "detroit" ##64#71#

<PERSON-S1-1> :=
    NAME: "glen bunting" ##77#89#

<EVENT-S2-1> :=
    LOCATION: "anchor age" ##61#71#
