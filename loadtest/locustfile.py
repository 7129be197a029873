"""Learners taking quizzes: log in, start an attempt on a question set, answer every question
(a random choice), start again. Run by `make loadtest` (loadtest/run.py), not by hand.

Each answer POST that the server accepts (302) is counted as sent, in the file named by
LOADTEST_SENT_FILE, so run.py can compare it with the answers the database stored."""

import os
import random
import re
import threading

from locust import HttpUser, between, events, task

PASSWORD = os.environ["LOADTEST_PASSWORD"]
SET_ID = os.environ["LOADTEST_SET_ID"]
CHOICES = int(os.environ.get("LOADTEST_CHOICES", "4"))
_names = iter(range(10**6))
_lock = threading.Lock()
sent = {"answers": 0}


class Learner(HttpUser):
    wait_time = between(0.05, 0.3)

    def on_start(self):
        with _lock:
            self.username = f"load{next(_names)}"
        page = self.client.get("/accounts/login/", name="login page").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        self.client.post("/accounts/login/", {"username": self.username, "password": PASSWORD,
                                              "csrfmiddlewaretoken": token}, name="log in", allow_redirects=False)

    def csrf(self):
        return {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}

    @task
    def take_a_quiz(self):
        response = self.client.post(f"/sets/{SET_ID}/start/", headers=self.csrf(), name="start attempt")
        url = response.url
        for _ in range(50):  # bounded: a quiz never has more questions than this here
            match = re.search(r"/attempts/(\d+)/questions/(\d+)/$", url or "")
            if not match:
                # The results page: the attempt is done. Back to the dashboard, built afresh
                # after this study, then kept (a reload, another tab).
                self.client.get("/", name="dashboard (after study)")
                self.client.get("/", name="dashboard (kept)")
                return
            answer = self.client.post(url, {"choice": random.randint(1, CHOICES)}, headers=self.csrf(),
                                      name="answer", allow_redirects=False)
            if answer.status_code == 302:
                with _lock:
                    sent["answers"] += 1
            self.client.get(url, name="question or feedback")
            nxt = self.client.get(f"/attempts/{match.group(1)}/", name="next question")
            url = nxt.url


@events.quitting.add_listener
def write_sent(environment, **kwargs):
    with open(os.environ["LOADTEST_SENT_FILE"], "w") as file:
        file.write(str(sent["answers"]))
