#pragma once

#include <QString>

#include <optional>

// The steps of an iteration a resume can tell apart: each is marked done in the same transaction as its
// results (SessionStore::markStepCompleted), so after a crash the search redoes exactly the unfinished ones.
// The search marks Baseline (iteration 0), Select and Summarize; Plan and Execute are kept for sessions and
// tools that mark them. On disk (completed_steps.step, sessions.current_step) a step is its name.
enum class ResumeStep
{
    Baseline,
    Plan,
    Execute,
    Select,
    Summarize,
};

namespace ResumeSteps {
QString name(ResumeStep step); // "baseline", "plan", "execute", "select", "summarize"
std::optional<ResumeStep> fromName(const QString &name);
} // namespace ResumeSteps
