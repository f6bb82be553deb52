"""Checks of a template set against the text corpus it was extracted from, and of its role.

The readers check what one file can say about itself; these checks need both files: every instance
set names a document of the corpus, and every extent lies inside its document. Others depend on the
side a template set is read for: a hypothesis slot holds one alternative, and a reference (a key)
holds at least one instance.
"""

from __future__ import annotations

from iescore.pipeline.core.documents import Corpus
from iescore.pipeline.core.errors import InputError
from iescore.pipeline.templette.model import TemplateSet, TextFill


def check_against_corpus(template_set: TemplateSet, corpus: Corpus, unsegmented: bool = False) -> None:
    """Raise InputError (template file and line) for an unknown document id or an extent off its document.

    With ``unsegmented`` the corpus is one word stream (seed 000, "Unsegmented Hypothesis Texts"):
    document ids only group instances into instance sets, and every extent counts from the start
    of the stream.
    """
    documents = corpus.by_id()
    for instance in template_set.instances:
        document = (
            corpus.documents[0]
            if unsegmented and corpus.documents
            else documents.get(instance.pointer.doc_id)
        )
        if document is None:
            raise InputError(
                template_set.source,
                instance.line,
                f"document id {instance.pointer.doc_id!r} of {instance.pointer.render()} is not in the "
                f"text corpus {corpus.source}",
            )
        size = len(document.text)
        for slot in instance.slots:
            for alternative in slot.alternatives:
                for fill in alternative:
                    if not isinstance(fill, TextFill):
                        continue
                    for extent in fill.extents:
                        if extent.start < 0 or extent.end > size:
                            raise InputError(
                                template_set.source,
                                fill.line,
                                f"extent {extent.start}#{extent.end} lies outside document "
                                f"{document.doc_id}, which has offsets 0 to {size}",
                            )
                        if extent.start >= extent.end:
                            raise InputError(
                                template_set.source,
                                fill.line,
                                f"extent start {extent.start} must be less than its end {extent.end}",
                            )


def check_reference_not_empty(
    template_set: TemplateSet,
    what: str = "reference template set",
    expected: str = "instance '<TYPE-DOCID-ONEUP> :='",
) -> None:
    """A reference (key) without any instance is bad input, not a score (REC and F would be undefined).

    An empty hypothesis is legitimate (a system that found nothing: every reference fill is missing);
    an empty reference is almost always the wrong file, a truncated one, or one in another format.
    ``what`` and ``expected`` name the file's role and what it lacks in the message.
    """
    if not template_set.instances:
        raise InputError(
            template_set.source,
            0,
            f"nothing to score against: a {what} with at least one {expected} expected",
        )


def check_single_alternatives(template_set: TemplateSet) -> None:
    """A hypothesis slot holds one fill-alternative (seed 000, "Instance Set")."""
    for instance in template_set.instances:
        for slot in instance.slots:
            if len(slot.alternatives) > 1:
                raise InputError(
                    template_set.source,
                    slot.line,
                    f"a hypothesis slot holds one fill-alternative; {slot.name} has {len(slot.alternatives)}",
                )
