#pragma once

#include "diff/comparepair.h"
#include "memory/experiencerecord.h"

#include <QObject>

#include <memory>
#include <optional>

// Asks the summarizer model for the lesson of one measured pair, outside a search: the Compare view's
// Summarize button. The same prompt and parser as the search's summarize step; the lesson comes back as an
// ExperienceRecord ready for the memory, but is not stored: the user confirms it first.
class PairSummary : public QObject
{
    Q_OBJECT
public:
    // `llmConfig` empty: LlmConfig::defaultPath()
    explicit PairSummary(const QString &llmConfig, QObject *parent = nullptr);
    ~PairSummary() override;

    // false, with the reason in `error`, when it cannot ask (an unmeasured pair, no summarizer model, broken
    // prompts); otherwise finished() follows, exactly once.
    bool start(const ComparePair &pair, QString &error);
    void cancel();

Q_SIGNALS:
    void finished(const std::optional<ExperienceRecord> &record, const QString &error);

private:
    void ask();
    void done(const std::optional<ExperienceRecord> &record, const QString &error);

    struct Parts;
    std::unique_ptr<Parts> m_parts;
    QString m_llmConfig;
};
