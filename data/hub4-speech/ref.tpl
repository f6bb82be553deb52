<ENTITY-S1-1> :=
    NAME: "General Motors" ##49#63#
    LOCATION: "Detroit" ##70#77#

<PERSON-S1-1> :=
    NAME: "Glen Buni- Bunting" ##88#106#

<EVENT-S2-1> :=
    LOCATION: "Anchorage" ##61#70#
