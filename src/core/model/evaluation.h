#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

// One run of a kernel on a host and backend, as the runner reported it (DESIGN.md §5). `raw` keeps the whole
// result line so nothing the runner said is lost when a field is added later.
struct Evaluation
{
    QString id;
    QString status; // ok, incorrect, compile_error, runtime_error, timeout, rejected, crashed, infra_error
    QString error;
    bool correctKnown = false;
    bool correct = false;
    double l2RelErr = -1;
    double maxAbsErr = -1;
    double latencyMeanMs = -1;
    double latencyMinMs = -1;
    double latencyMaxMs = -1;
    double latencyP50Ms = -1;
    double relSpread = -1;
    double peakMs = -1;
    double percentOfPeak = -1;
    QString bound;
    QJsonObject metrics;
    double wallSeconds = -1;
    QString host; // which host and slot ran it, filled in by HostPool
    int attempts = 1;
    QJsonObject raw;

    bool ok() const { return status == QStringLiteral("ok"); }
    static Evaluation fromJson(const QJsonObject &o);
    static Evaluation failure(const QString &id, const QString &status, const QString &error);
    // The summary `accelopt bench/suite --json` prints (DESIGN.md §5 names; latency_ms is the mean).
    QJsonObject summaryJson(const QString &task) const;
};
