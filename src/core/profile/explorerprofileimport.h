#pragma once

#include "model/evaluation.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

class SessionStore;

// A device profile exported from the Neuron Explorer UI ("Export to CSV" in the Device Trace Viewer writes
// Instruction.csv and DmaPacketAggregated.csv), attached to a hardware evaluation as its profile, so the
// Profile dock, the heat gutter and the recommendations work on it. The rows become the protocol's profile in
// the runner's Python (`accelopt_runner explorer-profile`, the code that reads Explorer's Parquet tables on a
// Neuron host), run here on the local interpreter: one conversion, one set of rules.
class ExplorerProfileImport
{
public:
    struct Outcome
    {
        bool ok = false;
        QString error;       // what went wrong, naming the file, and what to do
        Evaluation evaluation; // the evaluation as stored, with its new profile
        int runIndex = 0;
    };

    // The profile of `files` for the kernel `source` (its lines as sent), or the error. `metrics`: the
    // evaluation's (Explorer's Summary), to say how much of the run the export covers and whether it was sampled.
    static std::optional<QJsonObject> convert(const QStringList &files, const QString &source,
                                              const QJsonObject &metrics, QString &error);
    // Attaches the profile of `files` to the candidate's hardware evaluation: run `runIndex`, or with -1 the
    // first of its runs measured on a device. The stored result keeps every other field.
    static Outcome attach(SessionStore &store, const QString &candidateId, int runIndex, const QStringList &files);
};
