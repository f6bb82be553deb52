<ORGANIZATION-9303020074-1> :=
    ORG_NAME: "Evergreen Information Technologies Inc."
    ORG_TYPE: COMPANY
    ORG_ALIAS: "Evergreen Information Technologies"
               "Evergreen"
             / "Evergreen"
    ORG_LEADER: <PERSON-9303020074-57>
    COMMENT: "the alias is assumed"
<PERSON-9303020074-57> :=
    PER_NAME: "Joe Roth"
    PER_TITLE: "Mr."
<PERSON-9303020074-58> :=
    PER_NAME: "Rupert Murdoch"
    OBJ_STATUS: OPTIONAL
<PERSON-9303020075-1> :=
    PER_NAME: "Ann Lee"
    PER_TITLE: "Dr."
<ORGANIZATION-9303020076-1> :=
    ORG_NAME: "Acme Corp."
    ORG_TYPE: COMPANY
