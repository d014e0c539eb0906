#pragma once

#include "scriptedllmserver.h"

#include <QMap>
#include <QString>
#include <QStringList>

// A STAND-IN for a real model, for end-to-end tests only: plays planner, executor, fixer and summarizer from
// a fixtures folder (tests/fixtures/optimize/<task>: kernels, plans.md, lessons.md; see its README). Every
// kernel it hands out is real NKI code that nkisim compiles, runs and times. A reply depends only on the
// request's content (which kernel the prompt shows, which plan it carries) and its "seed", never on arrival
// order, so a resumed session that asks a call again gets the same answer as the first time.
//
//   planner:    a plan for the next kernel of the ladder baseline -> fast1 -> fast2, or for slow1 (a change
//   that
//               makes it slower), chosen by the seed
//   executor:   the plan's kernel; by the seed sometimes a kernel that fails to compile, one that computes
//   the
//               wrong numbers, or prose without code
//   fixer:      the plan's kernel, correct
//   summarizer: the fixture's lesson for the pair, or a plain one naming the pair
class ScriptedAgents
{
public:
    // `fixtureDir` holds the variants; `baseline` is the task's baseline.py.
    bool load(const QString &fixtureDir, const QString &baseline, QString &error);
    ScriptedLlmServer::Response reply(const ScriptedLlmServer::Request &request) const;
    ScriptedLlmServer::Handler handler(int delayMs = 0) const;

    // "planner", "executor", "fixer" or "summarizer", from the system prompt's first words.
    static QString roleOf(const ScriptedLlmServer::Request &request);
    static QString userText(const ScriptedLlmServer::Request &request);
    // The fixture variant whose source occurs in `text` ("baseline", "fast1", ...), or empty.
    QString variantIn(const QString &text) const;
    QString source(const QString &variant) const { return m_kernels.value(variant); }
    QString plan(const QString &variant) const { return m_plans.value(variant); } // the planner's reply
    QString lessonTitle(const QString &pair) const; // "fast1 -> fast2"
    QStringList lessonPairs() const { return m_lessons.keys(); }

    // The usage every reply reports, so a test can work out what the calls cost.
    static constexpr qint64 promptTokens = 1000;
    static constexpr qint64 completionTokens = 200;

private:
    QString planFor(const QString &variant) const;
    QString variantOfPlan(const QString &text) const;
    ScriptedLlmServer::Response answer(const QString &content) const;

    QMap<QString, QString> m_kernels; // variant -> source
    QMap<QString, QString> m_plans;   // variant -> planner reply
    QMap<QString, QString> m_lessons; // "a -> b" -> summarizer reply
};
