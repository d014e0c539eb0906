#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/planrecord.h"
#include "store/sessionrecord.h"
#include "store/sessionstore.h"

#include <QHash>
#include <QList>
#include <QMap>

#include <optional>

// Everything a view shows of one session, read from the workspace in one go: what the Search dock loads when
// a session is opened (a finished one, or a running one before its live events take over).
struct SessionSnapshot
{
    SessionRecord session;
    QList<Candidate> candidates; // in creation order, with their sources
    QHash<QString, Evaluation> evaluations;
    QHash<QString, Evaluation>
        remeasurements; // the best kernels' re-measurements (SessionStore::remeasureRun)
    QHash<QString, PlanRecord> plans;
    QMap<int, QStringList> beams; // the beam kept after each iteration, fastest first
    SessionStatistics::CostTotals cost;
    QMap<int, double> costByIteration; // SessionStore::costByIteration
    QString bestCandidateId;

    // nullopt with `error` when there is no such session (a unique id prefix is enough).
    static std::optional<SessionSnapshot> load(SessionStore &store, const QString &sessionId, QString &error);
};
