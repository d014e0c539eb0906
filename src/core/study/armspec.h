#pragma once

#include "llm/agentrole.h"
#include "llm/llmconfig.h"
#include "llm/modelroster.h"
#include "search/searchconfig.h"

#include <QJsonObject>
#include <QMap>
#include <QString>

#include <optional>

// One arm of a study (`accelopt study --arm NAME=SPEC`): a search configuration and, optionally, the models
// per role. The grammar, also in the CLI's help and the README:
//
//   SPEC    := MODE [ "," KEY "=" VALUE ]...
//   MODE    := "beam"   (beam search; keys width, plans, samples, iterations, memory)
//            | "sample" (repeated sampling: n independent plan -> kernel samples from the baseline, best
//            kept;
//                        key n; never uses the memory)
//   memory  := "on" | "off"                     (beam only; default on)
//   models  := ROLE ":" MEMBERS [ ";" ROLE ":" MEMBERS ]...
//   ROLE    := planner | executor | fixer | summarizer | all
//   MEMBERS := MEMBER [ "+" MEMBER ]...          (an ensemble, picked per call by weight)
//   MEMBER  := ENDPOINT [ "/" MODEL ] [ "@" WEIGHT ]
//
// e.g. `beam,memory=off,models=planner:big;executor:small@0.5+other@0.5`. Roles not named keep llm.json's.
// Repeated sampling is the search with one iteration of beam width 1 over the baseline, n plans of one sample
// each and no memory: the same engine, so its sessions open, compare and resume like any other.
struct ArmSpec
{
    enum class Mode
    {
        Beam,
        Sample
    };

    QString name;
    Mode mode = Mode::Beam;
    bool memory = true;
    int width = 2;       // B
    int plans = 3;       // N (the samples n of Mode::Sample)
    int samples = 1;     // K
    int iterations = 50; // T: high, so the study's budget is what stops a beam arm
    QMap<AgentRole, QList<ModelRoster::Member>> models;

    // "NAME=SPEC"; nullopt with `error` saying what is wrong, where, and what to write instead.
    static std::optional<ArmSpec> parse(const QString &argument, QString *error);
    QString spec() const; // the canonical SPEC, parsed back to the same arm

    // The search settings of this arm (budget and seed left to the study).
    SearchConfig config() const;
    // `base` with this arm's models in its roster; nullopt with `error` when a member names no endpoint of
    // it.
    std::optional<LlmConfig> llmConfig(const LlmConfig &base, QString *error) const;

    QJsonObject toJson() const;
    static std::optional<ArmSpec> fromJson(const QJsonObject &o, QString *error);

    bool operator==(const ArmSpec &) const = default;
};
