#pragma once

#include "model/candidate.h"
#include "model/evaluation.h"
#include "store/planrecord.h"

#include <QSplitter>

#include <optional>

class KernelEditor;
class QTextBrowser;

// A candidate of a session, opened from the Search dock: its kernel read-only in an editor (it can be saved
// under a new name, benchmarked, compared) with its plan and evaluation beside it.
class CandidateTab : public QSplitter
{
    Q_OBJECT
public:
    CandidateTab(const Candidate &candidate, const std::optional<PlanRecord> &plan,
                 const std::optional<Evaluation> &evaluation, std::optional<double> speedup,
                 QWidget *parent = nullptr);

    KernelEditor *editor() const { return m_editor; }
    QTextBrowser *details() const { return m_details; }
    QString candidateId() const { return m_id; }
    static QString title(const Candidate &candidate);

private:
    QString m_id;
    KernelEditor *m_editor;
    QTextBrowser *m_details;
};
