#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "search/searchconfig.h"
#include "search/searchtask.h"
#include "search/selection.h"

#include <QHash>

#include <optional>

class SessionStore;

// Where a stopped or crashed session picks up (docs/architecture.md, "One optimization", step 8), read back
// from the session store: the task as the session ran it, its settings, every kernel and evaluation so far,
// the beam of the last finished iteration and the counters the stop rules need. The search then reruns the
// unfinished iteration from its start; whatever had already landed (plans, replies, evaluations, experiences)
// is replayed from the stores, so nothing is asked, paid for or measured twice and no row is added twice.
struct ResumePoint
{
    QString sessionId;
    SearchTask task;
    SearchConfig config;
    QHash<QString, Candidate> candidates;
    QHash<QString, Evaluation> evaluations;
    int iteration = 0;        // the iteration to (re)run; 0: the baseline is not evaluated yet
    QList<ScoredKernel> beam; // the beam going into `iteration` (empty when iteration is 0)
    int iterationsWithoutImprovement = 0;
    double costUsd = 0; // what the session's recorded calls cost so far
    qint64 tokens = 0;

    // nullopt with `error` when the session is unknown, its settings unreadable or its rows inconsistent.
    static std::optional<ResumePoint> load(SessionStore &store, const QString &sessionId, QString &error);
};
