"""Editing one's own cards, reordering items, copying and deleting whole sets and decks, and
the editor pages' query counts (fixed, whatever the number of items)."""

import pytest
from django.urls import reverse
from django.utils import timezone

from quiz.models import Card, Deck, MemoryState, QuestionSet, SourceDocument, Topic
from quiz.study import scheduling
from tests.factories import make_deck, make_question_set, start_attempt
from tests.helpers import AUTH, HTMX


@pytest.fixture
def own_deck(learner):
    return make_deck("My deck", cards=3, owner=learner)


@pytest.fixture
def card(own_deck):
    return own_deck.cards.get(position=1)


def card_data(**changes):
    return {"front": "NVLink", "back": "GPU-to-GPU link", "misconception": "", "correction": "", "topics": "", **changes}


def test_it_saves_a_card_and_its_topics(learner_client, own_deck, card):
    data = card_data(misconception="It links disks", correction="It links GPUs", topics="Interconnects")

    response = learner_client.post(reverse("edit_card", args=[card.pk]), data)

    assert response.status_code == 302 and response["Location"].endswith(f"#card-{card.pk}")
    card.refresh_from_db()
    assert (card.front, card.back, card.misconception, card.correction) == (
        "NVLink", "GPU-to-GPU link", "It links disks", "It links GPUs"
    )
    assert [t.name for t in card.topics.all()] == ["Interconnects"]


def test_a_new_card_goes_last(learner_client, own_deck):
    response = learner_client.post(reverse("new_card", args=[own_deck.pk]), card_data(), **HTMX)

    assert response.status_code == 200 and response["HX-Retarget"] == "#items"
    new = own_deck.cards.get(front="NVLink")
    assert new.position == 4 and new.key.startswith("c-")


@pytest.mark.parametrize(
    "changes, field, message",
    [
        ({"front": ""}, "front", "Front: write something here."),
        ({"back": " "}, "back", "Back: write something here."),
        ({"misconception": "A myth"}, "correction", "a card has both, or neither"),
        ({"correction": "The truth"}, "misconception", "a card has both, or neither"),
        ({"back": "b" * 10_001}, "back", "at most 10000 characters"),
        ({"topics": "t" * 101}, "topics", "is longer than 100 characters"),
    ],
)
def test_a_refused_card_says_why_and_writes_nothing(learner_client, own_deck, card, changes, field, message):
    before = list(Card.objects.order_by("pk").values())

    response = learner_client.post(reverse("edit_card", args=[card.pk]), card_data(**changes), **HTMX)

    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field])
    assert message.split(":")[0] in response.content.decode()
    assert list(Card.objects.order_by("pk").values()) == before and not Topic.objects.exists()


def test_cards_not_ones_own_answer_404(learner_client, other_learner):
    theirs = make_deck(owner=other_learner, visibility="everyone").cards.get(position=1)
    library = make_deck().cards.get(position=1)

    for card in (theirs, library):
        assert learner_client.get(reverse("edit_card", args=[card.pk])).status_code == 404
        assert learner_client.post(reverse("edit_card", args=[card.pk]), card_data()).status_code == 404
        assert learner_client.get(reverse("edit_deck", args=[card.deck_id])).status_code == 404
    assert not Card.objects.filter(front="NVLink").exists()


# --- Reordering --------------------------------------------------------------------------------

def fronts(deck):
    return list(deck.cards.current().order_by("position").values_list("front", flat=True))


def test_up_and_down_swap_neighbours_without_javascript(learner_client, own_deck):
    second = own_deck.cards.get(position=2)

    response = learner_client.post(reverse("move_card", args=[second.pk]), {"direction": "up"})

    assert response.status_code == 302 and response["Location"].endswith(f"#card-{second.pk}")
    assert fronts(own_deck) == ["Front 2", "Front 1", "Front 3"]
    learner_client.post(reverse("move_card", args=[second.pk]), {"direction": "down"})
    learner_client.post(reverse("move_card", args=[second.pk]), {"direction": "down"})
    assert fronts(own_deck) == ["Front 1", "Front 3", "Front 2"]


def test_moving_past_either_end_changes_nothing(learner_client, own_deck):
    first, last = own_deck.cards.get(position=1), own_deck.cards.get(position=3)

    learner_client.post(reverse("move_card", args=[first.pk]), {"direction": "up"})
    learner_client.post(reverse("move_card", args=[last.pk]), {"direction": "down"})
    learner_client.post(reverse("move_card", args=[last.pk]), {"direction": "sideways"})

    assert fronts(own_deck) == ["Front 1", "Front 2", "Front 3"]


def test_moving_a_question_with_htmx_redraws_the_list(learner_client, learner):
    question_set = make_question_set(owner=learner, questions=3)
    third = question_set.questions.get(position=3)

    response = learner_client.post(reverse("move_question", args=[third.pk]), {"direction": "up"}, **HTMX)

    assert response.status_code == 200 and response.content.decode().lstrip().startswith('<div id="items"')
    order = list(question_set.questions.order_by("position").values_list("key", flat=True))
    assert order == ["q1", "q3", "q2"]


# --- Copies --------------------------------------------------------------------------------------

def test_duplicating_a_set_makes_a_private_copy_with_new_keys_and_no_history(learner_client, learner, other_learner):
    original = make_question_set("Routing", questions=3, owner=learner, visibility="everyone")
    original.questions.get(position=1).topics.add(Topic.objects.create(name="Routing"))
    start_attempt(other_learner, original)
    original.questions.filter(position=3).update(retired_at=timezone.now())

    response = learner_client.post(reverse("duplicate_set", args=[original.pk]))

    copy = QuestionSet.objects.exclude(pk=original.pk).get()
    assert response.status_code == 302 and response["Location"] == reverse("edit_set", args=[copy.pk])
    assert (copy.title, copy.owner, copy.visibility, copy.source) == ("Routing (copy)", learner, "private", None)
    questions = list(copy.questions.order_by("position"))
    assert [q.stem for q in questions] == ["Question 1 stem?", "Question 2 stem?"]  # not the retired one
    assert not {q.key for q in questions} & {"q1", "q2", "q3"}
    assert [(c.text, c.is_correct) for c in questions[1].choices.all()] == [
        (c.text, c.is_correct) for c in original.questions.get(position=2).choices.all()
    ]
    assert [t.name for t in questions[0].topics.all()] == ["Routing"]
    assert not copy.attempts.exists() and not MemoryState.objects.filter(question__question_set=copy).exists()


def test_duplicating_a_deck_copies_its_current_cards(learner_client, own_deck):
    own_deck.cards.filter(position=2).update(retired_at=timezone.now())

    learner_client.post(reverse("duplicate_deck", args=[own_deck.pk]))

    copy = Deck.objects.get(title="My deck (copy)")
    assert [(c.front, c.misconception, c.position) for c in copy.cards.order_by("position")] == [
        ("Front 1", "Myth 1", 1), ("Front 3", "Myth 3", 2)
    ]


def test_a_long_title_still_fits_once_copied(learner_client, learner):
    original = make_question_set("t" * 255, questions=1, owner=learner)

    learner_client.post(reverse("duplicate_set", args=[original.pk]))

    assert QuestionSet.objects.get(title__endswith="(copy)").title == "t" * 248 + " (copy)"


# --- Deleting whole sets and decks ----------------------------------------------------------------

def test_the_confirmation_page_deletes_nothing(learner_client, own_deck):
    response = learner_client.get(reverse("delete_deck", args=[own_deck.pk]))

    assert response.status_code == 200 and b"Delete this deck?" in response.content
    assert Deck.objects.filter(pk=own_deck.pk).exists()


def test_an_unused_set_is_deleted_with_the_record_of_its_document(learner_client, learner):
    source = SourceDocument.objects.create(owner=learner, file_name="routing.gift", kind="quiz", title="R", checksum="x")
    question_set = make_question_set(owner=learner, source=source)

    response = learner_client.post(reverse("delete_set", args=[question_set.pk]))

    assert response.status_code == 302 and response["Location"] == reverse("library")
    assert not QuestionSet.objects.exists() and not SourceDocument.objects.exists()


def test_a_set_with_history_is_kept_and_the_page_says_why(learner_client, learner, other_learner):
    question_set = make_question_set("Routing", owner=learner, visibility="everyone")
    start_attempt(other_learner, question_set)

    response = learner_client.post(reverse("delete_set", args=[question_set.pk]), follow=True)

    assert QuestionSet.objects.filter(pk=question_set.pk).exists()
    assert response.redirect_chain[-1][0] == reverse("edit_set", args=[question_set.pk])
    assert "“Routing” was not deleted: learners have answered its questions" in response.content.decode()


def test_a_studied_deck_is_kept(learner_client, own_deck, other_learner):
    scheduling.rate(user=other_learner, kind=MemoryState.Kind.CARD, item=own_deck.cards.first(), rating=3, source="study")

    response = learner_client.post(reverse("delete_deck", args=[own_deck.pk]), follow=True)

    assert Deck.objects.filter(pk=own_deck.pk).exists() and own_deck.cards.count() == 3
    assert "learners have studied its cards" in response.content.decode()


# --- Query counts: the same whatever the number of items ------------------------------------------



def grown_set(owner, questions):
    question_set = make_question_set(owner=owner, questions=questions)
    for question in question_set.questions.filter(position__lte=2):
        question.topics.add(Topic.objects.get_or_create(name=f"T{question.position}")[0])
    # one retired question answered by a learner, so the retired section and its count are drawn
    start_attempt(owner, question_set).finish()
    question_set.questions.filter(position=questions).update(retired_at=timezone.now())
    return question_set


@pytest.mark.parametrize("questions", [3, 30])
def test_the_set_page_runs_a_fixed_number_of_queries(learner_client, learner, django_assert_num_queries, questions):
    question_set = grown_set(learner, questions)

    # the set; its questions; their choices; their topics; retired ones' learners from memories, from attempts
    with django_assert_num_queries(AUTH + 6):
        assert learner_client.get(reverse("edit_set", args=[question_set.pk])).status_code == 200


@pytest.mark.parametrize("cards", [3, 30])
def test_the_deck_page_runs_a_fixed_number_of_queries(learner_client, learner, django_assert_num_queries, cards):
    deck = make_deck(owner=learner, cards=cards)
    scheduling.rate(user=learner, kind=MemoryState.Kind.CARD, item=deck.cards.last(), rating=3, source="study")
    deck.cards.filter(position=cards).update(retired_at=timezone.now())

    # the deck; its cards; their topics; the retired card's learners
    with django_assert_num_queries(AUTH + 4):
        assert learner_client.get(reverse("edit_deck", args=[deck.pk])).status_code == 200


@pytest.mark.parametrize("questions", [3, 30])
def test_the_question_form_runs_a_fixed_number_of_queries(learner_client, learner, django_assert_num_queries, questions):
    question = make_question_set(owner=learner, questions=questions).questions.get(position=1)

    # the question with its set; its choices; its topics; its choices again, for "Add an image"
    with django_assert_num_queries(AUTH + 4):
        assert learner_client.get(reverse("edit_question", args=[question.pk])).status_code == 200


# --- Renaming ------------------------------------------------------------------------------------

def test_a_set_imported_from_a_file_is_renamed_and_a_re_import_keeps_the_new_title(learner_client, learner):
    from quiz.content.pending import apply_pending, preview_pending, stage_import

    def import_csv(text):
        pending = stage_import(owner=learner, files=[("dc_ops.csv", text.encode())], format="csv")
        apply_pending(pending, previewed=preview_pending(pending).fingerprint)

    import_csv("stem,choices,answer\nWhich?,a|b,a\n")
    imported = QuestionSet.objects.get(owner=learner)
    assert imported.title == "dc ops"  # a CSV is titled from its file name

    response = learner_client.post(reverse("rename_set", args=[imported.pk]), {"title": "  Data-centre operations  "})
    import_csv("stem,choices,answer\nWhich?,a|b,a\nAnother?,c|d,d\n")

    imported.refresh_from_db()
    assert response.status_code == 302 and response["Location"] == reverse("edit_set", args=[imported.pk])
    assert imported.title == "Data-centre operations" and imported.questions.count() == 2


def test_a_deck_is_renamed_and_an_empty_title_is_refused_saying_why(learner_client, own_deck):
    learner_client.post(reverse("rename_deck", args=[own_deck.pk]), {"title": "Interconnects"})
    refused = learner_client.post(reverse("rename_deck", args=[own_deck.pk]), {"title": "   "}, follow=True)

    own_deck.refresh_from_db()
    assert own_deck.title == "Interconnects"
    assert "Not renamed. Title: write something here." in refused.content.decode()


def test_the_set_page_offers_renaming_without_javascript(learner_client, learner):
    own = make_question_set("dc ops", questions=1, owner=learner)
    page = learner_client.get(reverse("edit_set", args=[own.pk])).content.decode()
    assert f'action="{reverse("rename_set", args=[own.pk])}"' in page and 'name="title" id="rename-title" value="dc ops"' in page
