<TEMPLATE-A-1> :=
    DOC_NR: "A"
    CONTENT: <SUCCESSION_EVENT-A-1>
           / <SUCCESSION_EVENT-A-2>
<SUCCESSION_EVENT-A-1> :=
    POST: "chairman"
    IO_PERSON: <PERSON-A-1>
<SUCCESSION_EVENT-A-2> :=
    POST: "president"
<PERSON-A-1> :=
    PER_NAME: "Joe Roth"
<TEMPLATE-B-1> :=
    DOC_NR: "B"
