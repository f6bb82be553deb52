<ENTITY-story1-1> :=
    NAME: "general motors" ##28#42#
    LOCATION: "detroit" ##49#56#

<PERSON-story1-1> :=
    NAME: "glen bunting" ##62#74#

<EVENT-story2-1> :=
    LOCATION: "anchor age" ##121#131#
