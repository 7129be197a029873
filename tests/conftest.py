import pytest
from django.test import Client

from tests.factories import make_question_set, make_user


@pytest.fixture
def learner(db):
    return make_user("alice")


@pytest.fixture
def other_learner(db):
    return make_user("bob")


@pytest.fixture
def learner_client(learner):
    client = Client()
    client.force_login(learner)
    return client


@pytest.fixture
def other_client(other_learner):
    client = Client()
    client.force_login(other_learner)
    return client


@pytest.fixture
def question_set(db):
    return make_question_set("Networking basics", questions=3)
