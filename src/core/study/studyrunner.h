#pragma once

#include "search/stoprules.h"
#include "study/studystate.h"

#include <QObject>
#include <QString>

#include <memory>

class ExperienceStore;
class OptimizationRun;
class SessionStore;
class SshPrompter;

// Runs a study (StudyState) to its end, turn by turn: each round gives every unfinished run (task x arm x
// repeat) one slice of the budget, so at any moment all arms have spent about the same and a crash or a stop
// leaves comparable partial results. A turn is an ordinary OptimizationRun: the run's session is started on
// its first turn and resumed with a higher budget on the next (money and tokens by the search's own budget
// rules; evaluations by stopping it cleanly once the session holds that many fresh evaluations). The state
// is saved after every turn and as soon as a session exists, so `resume()` goes on from the turn under way.
class StudyRunner : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString llmConfig; // the base LLM settings the arms' models are taken from; empty: the default file
        std::shared_ptr<SshPrompter> prompter;
    };

    StudyRunner(SessionStore *store, const QString &studiesDir, const Options &options,
                QObject *parent = nullptr);
    ~StudyRunner() override;

    // Both false with error() when nothing could start (bad arms, unknown task, no such study); otherwise a
    // turn is under way and finished() follows.
    bool start(const StudyState &state);
    bool resume(const QString &idPrefix);
    void stop(); // the current turn stops cleanly (resumable); finished(false) follows

    const StudyState &state() const { return m_state; }
    QString error() const { return m_error; }
    QString studiesDir() const { return m_dir; }

Q_SIGNALS:
    void turnStarted(int run, int round);
    void turnFinished(int run, int round);
    void notice(const QString &message);
    void finished(bool completed); // false: stopped or failed (error() says which)

private:
    bool prepareArms();
    void nextTurn();
    void runTurn(int index);
    void endTurn(int index, StopReason reason);
    void recount(int index);
    bool save();
    void finish(bool completed, const QString &error = {});

    SessionStore *m_store;
    QString m_dir;
    Options m_options;
    StudyState m_state;
    QString m_error;
    std::unique_ptr<OptimizationRun> m_run;
    std::unique_ptr<ExperienceStore> m_memory;
    int m_turn = -1;        // the run whose turn is under way
    double m_evalLimit = 0; // an evaluations budget's limit for this turn
    bool m_cut = false;     // this turn was stopped by the study at its limit
    bool m_stopping = false;
};
