"""The learner's progress, as the dashboard shows it.

* `mastery`: what the learner knows, from their memory states: mastery per question set,
  deck and topic, the due forecast, the exam outlook and the items that trip them up;
* `activity`: when they studied, from their review log: reviews by local day, the streak;
* `charts`: those numbers as geometry for server-rendered SVG, with table alternatives;
* `dashboard`: the home page's context, built from the three above;
* `history`: the learner's own history as rows for "Download my history".

Every quiz answer also writes a ReviewLog row (source "quiz"), but only once its feedback may
be shown (`quiz.study.answers`): so every review's rating may be shown, and the dashboard
cannot tell the learner early whether a held-back answer was right.
"""
