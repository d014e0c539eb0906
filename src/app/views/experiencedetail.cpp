#include "experiencedetail.h"

#include "kerneleditor.h"

#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSplitter>
#include <QTextBrowser>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace {
QWidget *titled(const QString &title, QWidget *content, QWidget *parent)
{
    auto *box = new QWidget(parent);
    auto *layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    auto *label = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
    label->setBuddy(content);
    layout->addWidget(label);
    layout->addWidget(content);
    return box;
}

KernelEditor *snippetView(QWidget *parent)
{
    auto *editor = new KernelEditor(parent);
    editor->setReadOnly(true);
    editor->setFolding(QsciScintilla::NoFoldStyle); // nothing to fold in a few lines of code
    // A horizontal scroll bar only when a line is wider than the pane, not Scintilla's fixed 2000 pixels.
    editor->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTH, 1);
    editor->SendScintilla(QsciScintillaBase::SCI_SETSCROLLWIDTHTRACKING, 1);
    return editor;
}

} // namespace

ExperienceDetail::ExperienceDetail(QWidget *parent) : QWidget(parent)
{
    m_text = new QTextBrowser(this);
    m_text->setOpenLinks(false);
    m_before = snippetView(this);
    m_after = snippetView(this);
    m_usage = new QTreeWidget(this);
    m_usage->setRootIsDecorated(false);
    m_usage->setHeaderLabels({tr("Session"), tr("Iteration"), tr("Rank"), tr("Outcome"), tr("When")});
    m_usage->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_usageLabel = new QLabel(this);

    auto *snippets = new QSplitter(Qt::Horizontal, this);
    snippets->addWidget(titled(tr("Before (slow)"), m_before, snippets));
    snippets->addWidget(titled(tr("After (fast)"), m_after, snippets));
    auto *usageBox = new QWidget(this);
    auto *usageLayout = new QVBoxLayout(usageBox);
    usageLayout->setContentsMargins(0, 0, 0, 0);
    usageLayout->setSpacing(2);
    usageLayout->addWidget(m_usageLabel);
    usageLayout->addWidget(m_usage);

    auto *parts = new QSplitter(Qt::Vertical, this);
    parts->addWidget(m_text);
    parts->addWidget(snippets);
    parts->addWidget(usageBox);
    // Docked below the editor the pane may be short: each part keeps a few lines, never the window's height.
    const int line = fontMetrics().height();
    for (QWidget *w : std::initializer_list<QWidget *>{m_text, m_before, m_after, m_usage})
        w->setMinimumHeight(line);
    parts->setStretchFactor(0, 3);
    parts->setStretchFactor(1, 3);
    parts->setStretchFactor(2, 2);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(parts);
    setExperience(std::nullopt, {});
}

QString ExperienceDetail::markdown(const ExperienceRecord &r)
{
    QString facts = QStringLiteral("**%1×** %2 · task `%3`")
                        .arg(r.experience.speedup, 0, 'f', 2)
                        .arg(r.isNegative() ? tr("slower (a warning for the planner)") : tr("faster"), r.task);
    if (!r.target.isEmpty())
        facts += QStringLiteral(" · %1").arg(r.target);
    if (r.pinned)
        facts += tr(" · ★ pinned");
    QString origin;
    if (!r.sessionId.isEmpty())
        origin = tr("From session `%1`").arg(r.sessionId);
    if (!r.slowCandidateId.isEmpty() || !r.fastCandidateId.isEmpty())
        origin += (origin.isEmpty() ? tr("Candidates") : tr(": candidates")) +
                  QStringLiteral(" `%1` → `%2`").arg(r.slowCandidateId, r.fastCandidateId);
    if (origin.isEmpty())
        origin = tr("Imported or added by hand");
    const QString dates = tr("Created %1, updated %2")
                              .arg(QLocale::system().toString(r.created.toLocalTime(), QLocale::ShortFormat),
                                   QLocale::system().toString(r.updated.toLocalTime(), QLocale::ShortFormat));
    return QStringLiteral("## %1\n\n%2  \n%3  \n%4\n\n---\n\n%5\n")
        .arg(r.experience.title, facts, origin, dates, r.experience.lesson);
}

void ExperienceDetail::setExperience(const std::optional<ExperienceRecord> &record,
                            const QList<RetrievalRecord> &retrievals)
{
    m_usage->clear();
    if (!record) {
        m_text->setMarkdown(tr("*Select an experience to see its lesson, its code and where it was used.*"));
        m_before->setText(QString());
        m_after->setText(QString());
        m_usageLabel->setText(tr("<b>Shown to the planner</b>"));
        setEnabled(false);
        return;
    }
    setEnabled(true);
    m_text->setMarkdown(markdown(*record));
    m_before->setText(record->experience.snippetBefore);
    m_after->setText(record->experience.snippetAfter);
    const QString hitRate = ExperienceRecord::hitRateText(record->decided, record->faster);
    m_usageLabel->setText(tr("<b>Shown to %n plan(s)</b> · hit rate %1", nullptr, record->shown)
                              .arg(hitRate.isEmpty() ? QStringLiteral("–") : hitRate));
    for (const RetrievalRecord &r : retrievals) {
        auto *item = new QTreeWidgetItem(
            m_usage, {r.sessionId, QString::number(r.iteration), QString::number(r.rank + 1),
                      RetrievalRecord::outcomeText(r.outcome),
                      QLocale::system().toString(r.retrievedAt.toLocalTime(), QLocale::ShortFormat)});
        item->setToolTip(0, tr("Plan %1").arg(r.planId));
    }
}
