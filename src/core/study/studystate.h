#pragma once

#include "study/armspec.h"
#include "study/runmeasure.h"
#include "study/studybudget.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

// A study as it stands, kept in `<workspace>-studies/<id>.json` beside the workspace (like the session locks
// in `<workspace>-locks/`), written atomically after every change. A file, not a workspace table: the
// sessions a study runs are ordinary rows of the workspace, and the study is only the plan over them (which
// runs, which round, where each stopped), so the workspace's schema and every reader of it stay as they are,
// and deleting a study can never touch a session. Its folder `<id>/` holds each arm's llm.json and each
// memory-using arm's memory, one per repeat, so no arm learns from another's or from the user's lessons.
struct StudyState
{
    static constexpr int formatVersion = 1;

    struct Checkpoint
    {
        int round = 0;
        RunMeasure measure;
    };
    struct Run
    {
        QString task;
        QString arm;
        int repeat = 0;
        QString sessionId; // empty until its first slice started
        bool done = false; // ended by its own rules (a sample arm's one iteration) or failed: no more slices
        QString stopReason;
        QList<Checkpoint> checkpoints; // one per slice it ran, in order
    };

    QString id;
    QString created; // ISO 8601, UTC
    QStringList tasks;
    QString size = QStringLiteral("small");
    QString target;
    QString backend;
    QString host;
    int jobs = 2;
    int seed = 1; // repeat r of every arm runs with seed + r: arms of one repeat draw the same numbers
    StudyBudget budget;
    QList<ArmSpec> arms;
    int repeats = 1;
    int round = 1; // the round under way (1..budget.slices)
    bool finished = false;
    QList<Run> runs; // task-major, then repeat, then arm: the order of a round's turns

    // A new study's runs, in turn order.
    void planRuns();
    const ArmSpec *arm(const QString &name) const;
    QStringList problems() const;

    static QString studiesDir(const QString &workspacePath); // <workspace>-studies
    QString file(const QString &dir) const { return dir + u'/' + id + QStringLiteral(".json"); }
    QString folder(const QString &dir) const { return dir + u'/' + id; }

    QJsonObject toJson() const;
    static std::optional<StudyState> fromJson(const QJsonObject &o, QString *error);
    bool save(const QString &dir, QString *error) const;
    // By id or its first characters; an error naming the folder and what is there when none or several match.
    static std::optional<StudyState> load(const QString &dir, const QString &idPrefix, QString *error);
    // Every study in `dir`, newest first (by `created`, then id); a file that cannot be read is left out,
    // untouched, and named in `problems` with why. An absent folder is no study and no problem.
    static QList<StudyState> loadAll(const QString &dir, QStringList *problems);

private:
    static std::optional<StudyState> readFile(const QString &path, QString *error);
};
