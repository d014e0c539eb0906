#pragma once

#include <QJsonObject>
#include <QString>

#include <optional>

// The one budget every run of a study (each task x arm x repeat) gets: money, tokens or evaluations. A study
// spends it in slices, round-robin over the runs, so whatever stops it leaves every arm at a comparable
// point.
struct StudyBudget
{
    enum class Kind
    {
        Usd,
        Tokens,
        Evaluations
    };
    Kind kind = Kind::Evaluations;
    double amount = 0;
    int slices = 4; // rounds: run i stops at amount * round / slices, then the next run gets its turn

    double limitAt(int round) const { return amount * round / slices; }
    QString kindName() const; // "usd", "tokens", "evaluations"
    static std::optional<Kind> kindFromName(const QString &name);
    QStringList problems() const;

    QJsonObject toJson() const;
    static std::optional<StudyBudget> fromJson(const QJsonObject &o, QString *error);
    bool operator==(const StudyBudget &) const = default;
};
