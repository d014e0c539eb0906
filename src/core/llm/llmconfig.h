#pragma once

#include "llm/endpoint.h"
#include "llm/modelroster.h"
#include "llm/pricetable.h"
#include "llm/retrypolicy.h"

#include <optional>

// The LLM settings the workbench and the CLI share, in one versioned JSON file: endpoints (without keys), the
// role roster, the price table and the retry policy. JSON rather than QSettings so the two programs (whose
// QSettings differ by application name) and a team's shared copy read the same thing, and so it diffs well.
struct LlmConfig
{
    static constexpr int formatVersion = 1;

    QList<Endpoint> endpoints;
    ModelRoster roster;
    PriceTable prices;
    RetryPolicy retry;

    const Endpoint *endpoint(const QString &name) const;
    QStringList endpointNames() const;
    QStringList problems() const; // duplicate names, roster references, each endpoint's own problems

    QJsonObject toJson() const;
    static std::optional<LlmConfig> fromJson(const QJsonObject &o, QString *error);

    // $ACCELOPT_LLM_CONFIG, else <generic config dir>/AccelOpt/llm.json.
    static QString defaultPath();
    // A missing file is an empty config, not an error; a broken one is an error saying where. A file (or
    // AccelOpt's folder) open to other users is tightened first (LlmConfigAccess); what was tightened is
    // logged as a warning and added to `notes`.
    static std::optional<LlmConfig> load(const QString &path, QString *error, QStringList *notes = nullptr);
    // Atomic (a crash never leaves half a file) and private: the file 0600, a folder it creates 0700.
    bool save(const QString &path, QString *error) const;
};
