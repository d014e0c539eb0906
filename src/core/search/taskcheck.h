#pragma once

#include <QJsonObject>
#include <QList>
#include <QObject>

#include <memory>

class Host;

// Runs the runner's task check (the task_check op, nkibench/runner/README.md) on a host: the reference runs and
// is deterministic, the declared shapes match it, the full size fits in memory, the baseline is correct at the
// small and the full size; it also counts the task's bytes and FLOPs for the roofline.
class TaskCheck : public QObject
{
    Q_OBJECT
public:
    struct Item
    {
        QString check; // the runner's id, e.g. "reference_deterministic"
        bool ok = false;
        QString detail;
    };
    struct Result
    {
        bool ok = false;
        QString error;      // the first failing check, or why the check could not run
        QList<Item> checks; // in the order they ran
        QJsonObject raw;    // the runner's task_check_result object (inputs, outputs, roofline, latencies)
    };

    TaskCheck(Host *host, QObject *parent = nullptr); // the host runs the check on slot 0
    ~TaskCheck() override;

    // task: as in an eval request ({"dir": ...}); kernel empty: the task's baseline.py.
    void start(const QJsonObject &task, const QString &kernel = {}, const QString &function = {});

Q_SIGNALS:
    void finished(const TaskCheck::Result &result);

private:
    void done(const Result &result);

    struct Parts;
    std::unique_ptr<Parts> m_parts;
};
