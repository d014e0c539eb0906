#pragma once

#include "model/evalprofile.h"
#include "model/evalstatus.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <optional>

// One run of a kernel on a host and backend, as the runner reported it (nkibench/runner/README.md, "Result").
// A measurement the runner did not send is empty, never a sentinel. `raw` keeps the whole result line so
// nothing the runner said is lost when a field is added later.
struct Evaluation
{
    QString id;
    EvalStatus status = EvalStatus::InfraError;
    QString error;
    std::optional<bool> correct; // empty: not checked (a timing-only run, or it never got that far)
    std::optional<double> l2RelErr;
    std::optional<double> maxAbsErr;
    std::optional<double> latencyMeanMs;
    std::optional<double> latencyMinMs;
    std::optional<double> latencyMaxMs;
    std::optional<double> latencyP50Ms;
    std::optional<double> relSpread;
    std::optional<double> peakMs;
    std::optional<double> percentOfPeak; // 0-100
    QString bound;                       // "memory", "matmul", "vector", ...; empty when unknown
    QStringList warnings; // the runner's, e.g. why % of peak is missing ("roofline: task 'x' has no ...")
    QJsonObject metrics;                 // neuron-profile summary names
    std::optional<double> wallSeconds;
    QString host; // which host and slot ran it ("name#slot"), filled in by HostPool
    // What produced the numbers (issue 34): the runner's backend ("sim": nkisim's model; "neuron": a device)
    // and its `sdk` ("nkisim", "Neuron SDK 2.33 (...)"). Empty for a result of a runner older than both.
    QString backend;
    QString sdk;
    int attempts = 1;
    // Set when this is another candidate's measurement, taken over because the two kernels have the same
    // normalized source: the id of the candidate that was measured. Empty for a measurement of its own.
    QString reusedFrom;
    // Where the time went (line costs, engine busy time, and the timeline when one was asked for); shared,
    // as a timeline is large and evaluations are copied between threads and models.
    EvalProfilePtr profile;
    QJsonObject raw; // without the profile's timeline, which `profile` holds

    bool ok() const { return status == EvalStatus::Ok; }
    bool isCorrect() const { return correct.value_or(false); }
    QString statusName() const { return EvalStatuses::name(status); }
    // The host's name without the slot.
    QString hostName() const { return host.section(QLatin1Char('#'), 0, 0); }
    bool onHardware() const { return backend == QLatin1StringView("neuron"); }
    // "hardware" or "nkisim" ("" when the runner did not say): whether a latency was measured or predicted.
    QString provenance() const;
    // One line for people and prompts: "nkisim on local", "hardware (Neuron SDK 2.33 (...)) on trn".
    QString provenanceText() const;

    // A finite number the runner reported under `name` in metrics.
    std::optional<double> metric(QLatin1StringView name) const;
    // Active time per engine as a fraction 0-1 of the kernel's time (the *_active_time_percent metrics).
    struct EngineActivity
    {
        std::optional<double> tensor, vector, scalar, gpsimd, dma;
    };
    EngineActivity engineActivity() const;
    // Bytes moved per memory, read and written.
    struct MemoryTraffic
    {
        std::optional<double> hbmRead, hbmWrite, sbufRead, sbufWrite, psumRead, psumWrite;
    };
    MemoryTraffic memoryTraffic() const;
    std::optional<double> dmaTransferCount() const { return metric(QLatin1StringView("dma_transfer_count")); }
    std::optional<double> dmaAverageBytes() const
    {
        return metric(QLatin1StringView("dma_transfer_average_bytes"));
    }

    static Evaluation fromJson(const QJsonObject &o);
    // A number of the runner's roofline object (flops, min_bytes, peak_flops_per_s, bytes_per_s); 0 when the
    // result has none.
    double rooflineFigure(const char *key) const;
    // The profile of a result line (or of a stored raw object); takes the timeline out of `raw`.
    static EvalProfilePtr profileFrom(QJsonObject &raw);
    static Evaluation failure(const QString &id, EvalStatus status, const QString &error);
    // The summary `accelopt bench/suite --json` prints (the runner protocol's names; latency_ms is the mean).
    QJsonObject summaryJson(const QString &task) const;
    // A number for JSON output: null when unknown.
    static QJsonValue json(const std::optional<double> &value);
    static QJsonValue json(const std::optional<bool> &value);
};
