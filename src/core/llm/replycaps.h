#pragma once

#include "llm/agentrole.h"

#include <QString>

// How much of a model's reply is kept, per role. The transport cap (ChatClient::setMaxReplyBytes, 64 MB)
// only guards memory; a reply that big is never a real plan or kernel, yet stored whole it bloats the
// session store and, passed on whole, fills the next agent's prompt (a 50 MB "plan" went into the
// executor's). Each cap is many times the natural size of what the role returns, so no real reply is cut:
//   planner     64 Ki characters: a plan is a title and a few steps, 1-5 KB; room for plans that quote code.
//   executor,
//   fixer      256 Ki characters: one complete kernel and a few words; the NKIBench baselines are at most
//              6 KB and unrolled optimized kernels 20-40 KB, so 6x the largest seen, and still far below
//              the 4 MiB a kernel file may have.
//   summarizer  64 Ki characters: a title, a lesson and two short snippets.
//   reasoning    1 Mi characters, every role: a reasoning trace within a 128K-token budget is about
//              0.5 MB of text; it is stored for the record and never passed on.
// A reply over its cap keeps its first `cap` characters followed by a note that says what was cut, so the
// note is in what the next agent reads and in what the session store keeps (the same text, so a resumed
// session replays exactly what the live one saw).
class ReplyCaps
{
public:
    static qsizetype contentChars(AgentRole role);
    static constexpr qsizetype reasoningChars = 1024 * 1024;

    // Cuts `text` to `cap` characters (never between the halves of a surrogate pair) and appends the note,
    // when it is longer than that. `originalChars` is the reply's full length, which may exceed
    // text.size() when a stream stopped being kept at the cap. True when something was cut.
    // `what` names the text: "planner reply", "fixer reasoning".
    static bool cut(QString &text, qsizetype cap, qsizetype originalChars, const QString &what);
    static QString note(qsizetype kept, qsizetype cap, qsizetype originalChars, const QString &what);
};
