#pragma once

#include "study/studystate.h"

#include <QJsonObject>
#include <QList>
#include <QString>

#include <optional>

// What a study found, from its state's checkpoints (each run's last one is where it stands): per task and
// arm, the best % of peak and the speedup over the repeats (mean, least, most) against what was spent; and
// the chart's data, one line per arm: after each round, the mean cost against the mean best % of peak with
// its spread. Money is the cost axis only when every call of every run had a price; otherwise the study
// compares on tokens (and evaluations) and `note` says which arm's calls were unpriced and why.
class StudyResult
{
public:
    struct Spread
    {
        int n = 0; // repeats that have a value
        double mean = 0;
        double min = 0;
        double max = 0;
        static Spread of(const QList<double> &values);
    };
    struct Row
    {
        QString task;
        QString arm;
        QString spec;
        int runs = 0;
        Spread percentOfPeak;
        Spread speedup;
        std::optional<double> costUsd; // mean; empty when some call was unpriced
        double tokens = 0;             // means over the repeats
        double evaluations = 0;
        double deviceSeconds = 0;
        int unpricedCalls = 0; // summed over the repeats
    };
    struct Point
    {
        int round = 0;
        double cost = 0; // on the basis's axis
        Spread percentOfPeak;
    };
    struct Series
    {
        QString task;
        QString arm;
        QList<Point> points;
    };

    explicit StudyResult(const StudyState &state);

    QString basis() const { return m_basis; } // "usd" or "tokens"
    QString note() const { return m_note; }   // why tokens, when they are the basis; else empty
    const QList<Row> &rows() const { return m_rows; }
    const QList<Series> &chart() const { return m_chart; }

    QString table() const;
    QString csv() const; // one line per run (task, arm, repeat), so a reader computes any statistic
    QJsonObject toJson() const;

private:
    StudyState m_state;
    QString m_basis;
    QString m_note;
    QList<Row> m_rows;
    QList<Series> m_chart;
};
