#pragma once

#include <QtGlobal>

// The `usage` block of a chat completions reply. A reply without one has no TokenUsage at all (std::nullopt
// where it is held), so "unknown" is never confused with zero.
struct TokenUsage
{
    qint64 inputTokens = 0;  // prompt_tokens
    qint64 outputTokens = 0; // completion_tokens (reasoning tokens included, as providers bill them)
};
