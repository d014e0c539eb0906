#pragma once

#include <QJsonObject>
#include <QStringList>

#include <optional>

// The settings of one optimization run (docs/architecture.md, "One optimization"): the beam's shape, the
// memory's thresholds, the fixer's rounds and the stop rules. Stored with the session (SessionRecord::config)
// as it was at the start, so a resumed session never depends on today's settings. A budget or target of 0
// means "no limit".
struct SearchConfig
{
    static constexpr int formatVersion = 1;

    int beamWidth = 6;           // B: kernels kept per iteration
    int plansPerKernel = 12;     // N: planner calls per beam kernel
    int samplesPerPlan = 2;      // K: executor calls per plan
    int iterations = 16;         // T
    int fixRounds = 1;           // F: fixer rounds for a candidate that failed to compile or was incorrect
    int topK = 8;                // new experiences per iteration, at most
    int expN = 16;               // experiences shown to the planner
    double gainThreshold = 1.04; // speedup >= this: a positive experience
    double lossThreshold = 1.0 / 1.15; // speedup <= this: a negative experience
    double noiseFloor = 0.01;          // the least relative spread a comparison assumes
    double budgetUsd = 0;              // stop when the money spent reaches this
    qint64 budgetTokens = 0;           // prompt + completion tokens
    double budgetWallSeconds = 0;      // since the session started (this run)
    double targetPercentOfPeak = 0;    // stop when the best kernel reaches this % of the roofline peak
    int patience = 0;                  // P: stop after this many iterations without improvement
    // Seeds every LLM call's sampling (with the call's place in the search), so a rerun with the same seed
    // asks the same questions the same way. 0: a fresh one is drawn when the session starts, then kept.
    int seed = 0;
    // The cascade (false): a candidate is first only timed, and its numerics are checked only when it is fast
    // enough to enter the beam, make an experience or decide a plan's hit rate; the rest stay "not checked".
    // True: every candidate is checked as it is evaluated, as the original method does.
    bool checkAll = false;
    // The two-stage evaluation (issue 34): the name of a Neuron (hardware) host on which the candidates that
    // could change the outcome are measured again after nkisim timed them all (Confirmation); the beam, the
    // experiences and the reported best then use device numbers only. Empty: off. Whether the host exists is
    // checked where hosts are known (OptimizationRun), not in problems().
    QString confirmOn;

    // Everything wrong with the settings, in words naming the setting; empty when usable.
    QStringList problems() const;
    bool isValid() const { return problems().isEmpty(); }

    QJsonObject toJson() const;
    // Missing keys keep their defaults; a key of the wrong type, an unknown key or a newer format is an
    // error naming it. The result is not validated: call problems().
    static std::optional<SearchConfig> fromJson(const QJsonObject &o, QString *error = nullptr);

    // "paper": the AccelOpt paper's values (B=6, N=12, K=2, T=16, TopK=8, ExpN=16). "interactive": a cheap
    // run for trying things at a desk (B=2, N=3, K=1, T=4), with a patience of 2 iterations.
    static QStringList presetNames();
    static std::optional<SearchConfig> preset(const QString &name);

    bool operator==(const SearchConfig &) const = default;
};
