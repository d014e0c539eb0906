#pragma once

#include <QJsonObject>
#include <QList>
#include <QString>

// A task the user is making from their own kernel and reference (accelopt task new, the New Task wizard):
// the fields of a task.json in the short user format (nkibench/tasks/README.md, "User tasks") and the texts
// of its files. It writes nothing into a visible place itself: writeDraft makes a hidden folder that
// TaskCreation checks and then renames into place, so a task that fails its check leaves nothing behind.
class TaskDraft
{
public:
    struct Input
    {
        QString name;
        QList<qint64> shape;      // full size
        QList<qint64> smallShape; // empty: same as shape
        QString dtype = QStringLiteral("float32");
    };

    QString name;
    QString description;
    QString function; // the kernel function; empty: the runner's rule
    QList<Input> inputs;
    double relTol = 0; // 0: the runner's default (2e-5)
    QString kernelSource;
    QString referenceSource;
    QString kernelFile; // the user's kernel file, recorded so the window and the CLI find this task from it

    // "x=256x2048:float32" (dtype optional, default float32).
    static bool parseInput(const QString &spec, Input &out, QString &error);
    // "x=64x512": the small shape of input x, set into `inputs`.
    bool applySmall(const QString &spec, QString &error);
    // Letters, digits, '_' and '-', starting with a letter; at most 64 characters.
    static bool validName(const QString &name, QString &error);
    static QString shapeText(const QList<qint64> &shape); // "256x2048"

    bool validate(QString &error) const;
    QJsonObject taskJson() const;
    // Writes task.json, reference.py and baseline.py into a new hidden folder in parentDir (created if needed).
    // Returns its path, or empty with `error`.
    QString writeDraft(const QString &parentDir, QString &error) const;
};
