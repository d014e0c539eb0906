#pragma once

#include "memory/experiencerecord.h"
#include "memory/retrievalrecord.h"

#include <QWidget>

#include <optional>

class KernelEditor;
class QLabel;
class QTextBrowser;
class QTreeWidget;

// The Memory dock's detail pane for one experience: its title and figures, the lesson rendered from
// Markdown, where it came from (session and candidates), the before and after snippets with Python
// highlighting, and its usage evidence: every plan it was shown to, and what came of it.
class ExperienceDetail : public QWidget
{
    Q_OBJECT
public:
    explicit ExperienceDetail(QWidget *parent = nullptr);

    void setExperience(const std::optional<ExperienceRecord> &record, const QList<RetrievalRecord> &retrievals);

    QTextBrowser *text() const { return m_text; }
    KernelEditor *before() const { return m_before; }
    KernelEditor *after() const { return m_after; }
    QTreeWidget *usage() const { return m_usage; }

    // The header and lesson as the pane renders them (Markdown), for the tests and for copying.
    static QString markdown(const ExperienceRecord &record);

private:
    QTextBrowser *m_text;
    KernelEditor *m_before;
    KernelEditor *m_after;
    QLabel *m_usageLabel;
    QTreeWidget *m_usage;
};
