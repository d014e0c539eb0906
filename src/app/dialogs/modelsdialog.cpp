#include "modelsdialog.h"

#include "appcontext.h"
#include "llm/chatreply.h"
#include "llm/endpointpresets.h"
#include "ui_modelsdialog.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHeaderView>
#include <QMenu>
#include <QPushButton>
#include <QSet>
#include <QUrl>

namespace {
const double unsetTemperature = -0.05; // the spin box's minimum, shown as "server default"
enum RoleColumn
{
    RoleName,
    RoleEndpoint,
    RoleModel,
    RoleWeight,
    RoleColumns
};
} // namespace

ModelsDialog::ModelsDialog(AppContext *context, QWidget *parent)
    : QDialog(parent), m_ui(std::make_unique<Ui::ModelsDialog>()), m_context(context)
{
    m_ui->setupUi(this);
    m_ui->keySourceCombo->addItem(tr("None"), Endpoint::keySourceName(Endpoint::KeySource::None));
    m_ui->keySourceCombo->addItem(tr("Environment variable"),
                                  Endpoint::keySourceName(Endpoint::KeySource::Environment));
    m_ui->keySourceCombo->addItem(tr("Keychain, else variable"),
                                  Endpoint::keySourceName(Endpoint::KeySource::Keychain));
    m_ui->authCombo->addItem(tr("Authorization: Bearer"));
    m_ui->authCombo->addItem(tr("Custom header"));
    m_ui->reasoningCombo->addItems(
        {QString(), QStringLiteral("low"), QStringLiteral("medium"), QStringLiteral("high")});
    m_ui->reasoningCombo->setItemText(0, tr("not sent"));

    auto *presetMenu = new QMenu(this);
    for (const EndpointPreset &p : EndpointPresets::all())
        presetMenu->addAction(p.label, this, [this, id = p.id] { addEndpoint(id); });
    m_ui->addButton->setMenu(presetMenu);

    m_ui->rolesTable->setColumnCount(RoleColumns);
    m_ui->rolesTable->setHorizontalHeaderLabels({tr("Role"), tr("Endpoint"), tr("Model"), tr("Weight")});
    m_ui->rolesTable->verticalHeader()->hide();
    m_ui->rolesTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The choices are cell widgets, which ResizeToContents does not measure: the two lists share the width.
    m_ui->rolesTable->horizontalHeader()->setSectionResizeMode(RoleName, QHeaderView::ResizeToContents);
    m_ui->rolesTable->horizontalHeader()->setSectionResizeMode(RoleEndpoint, QHeaderView::Stretch);
    m_ui->rolesTable->horizontalHeader()->setSectionResizeMode(RoleModel, QHeaderView::Stretch);
    m_ui->rolesTable->horizontalHeader()->setSectionResizeMode(RoleWeight, QHeaderView::ResizeToContents);
    m_ui->pricesTable->setColumnCount(3);
    m_ui->pricesTable->setHorizontalHeaderLabels({tr("Model"), tr("Input $/Mtok"), tr("Output $/Mtok")});
    m_ui->pricesTable->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    connect(m_context, &AppContext::llmConfigLoaded, this,
            [this](quint64 job, const std::optional<LlmConfig> &config, const QString &error,
                   const QStringList &notes) {
                if (job == m_loadJob)
                    fill(config, error, notes);
            });
    connect(m_context, &AppContext::endpointTested, this,
            [this](quint64 job, bool keyFound, const QString &note, const ChatReply &reply) {
                if (job == m_testJob)
                    showTest(keyFound, note, reply);
            });
    connect(m_context, &AppContext::keyKept, this, [this](quint64 job, bool kept, const QString &message) {
        if (!m_keyJobs.remove(job))
            return;
        m_ui->testResultLabel->setText(kept ? message : tr("Not kept: %1").arg(message));
        Q_EMIT keyKept(kept, message);
        if (m_keyJobs.isEmpty() && m_acceptWhenKept)
            accept();
    });
    connect(m_context, &AppContext::llmConfigSaved, this, [this](quint64 job, const QString &error) {
        if (job == m_saveJob)
            saved(error);
    });
    setProblem(tr("Reading %1…").arg(m_context->llmConfigPath()));
    m_loadJob = m_context->loadLlmConfig();

    connect(m_ui->endpointList, &QListWidget::currentRowChanged, this, [this](int row) {
        storeEndpoint(m_current);
        if (!m_ui->keyEdit->text().trimmed().isEmpty())
            keepTypedKey(); // typed for the endpoint being left: kept for it, not dropped
        showEndpoint(row);
    });
    connect(m_ui->removeButton, &QPushButton::clicked, this, [this] {
        const int row = m_ui->endpointList->currentRow();
        if (row < 0)
            return;
        m_config.endpoints.removeAt(row);
        m_current = -1;
        refreshList();
    });
    connect(m_ui->nameEdit, &QLineEdit::editingFinished, this, [this] {
        const QString before = m_config.endpoints.value(m_current).name;
        storeEndpoint(m_current);
        if (auto *item = m_ui->endpointList->item(m_current))
            item->setText(m_ui->nameEdit->text());
        // A renamed endpoint keeps its roles.
        const QString after = m_config.endpoints.value(m_current).name;
        for (int row = 0; before != after && row < m_ui->rolesTable->rowCount(); ++row) {
            auto *endpoints = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleEndpoint));
            auto *models = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleModel));
            if (endpoints->currentData().toString() != before)
                continue;
            const QString model = models->currentData().toString();
            fillEndpointChoices(endpoints, after);
            fillModelChoices(models, after, model);
        }
    });
    connect(m_ui->storeKeyButton, &QPushButton::clicked, this, &ModelsDialog::keepTypedKey);
    connect(m_ui->keyEdit, &QLineEdit::textChanged, this,
            [this](const QString &text) { m_ui->storeKeyButton->setEnabled(m_current >= 0 && !text.isEmpty()); });
    // The Roles tab offers the endpoints and models as the Endpoints tab has them now.
    connect(m_ui->tabs, &QTabWidget::currentChanged, this, [this] {
        storeEndpoint(m_current);
        refreshRoleChoices();
    });
    connect(m_ui->addRoleMemberButton, &QPushButton::clicked, this, [this] {
        const int row = std::max(0, m_ui->rolesTable->currentRow());
        const QTableWidgetItem *item = m_ui->rolesTable->item(row, RoleName);
        if (!item)
            return;
        const AgentRole role = AgentRoles::fromName(item->text()).value_or(AgentRole::Planner);
        addRoleRow(row + 1, role, {});
        m_ui->rolesTable->setCurrentCell(row + 1, RoleEndpoint);
    });
    connect(m_ui->removeRoleMemberButton, &QPushButton::clicked, this, [this] {
        const int row = m_ui->rolesTable->currentRow();
        if (row < 0)
            return;
        // A role's last row stays, emptied: the role is then unassigned, and still listed.
        const QString role = m_ui->rolesTable->item(row, RoleName)->text();
        int rows = 0;
        for (int r = 0; r < m_ui->rolesTable->rowCount(); ++r)
            rows += m_ui->rolesTable->item(r, RoleName)->text() == role ? 1 : 0;
        if (rows > 1) {
            m_ui->rolesTable->removeRow(row);
            return;
        }
        auto *endpoints = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleEndpoint));
        endpoints->setCurrentIndex(0);
    });
    connect(m_ui->testButton, &QPushButton::clicked, this, &ModelsDialog::testCurrentEndpoint);
    connect(m_ui->addPriceButton, &QPushButton::clicked, this, [this] {
        const int row = m_ui->pricesTable->rowCount();
        m_ui->pricesTable->insertRow(row);
        const Endpoint *e =
            m_config.endpoints.value(m_current).name.isEmpty() ? nullptr : &m_config.endpoints[m_current];
        m_ui->pricesTable->setItem(row, 0, new QTableWidgetItem(e ? e->model : QString()));
        m_ui->pricesTable->setItem(row, 1, new QTableWidgetItem(QStringLiteral("0")));
        m_ui->pricesTable->setItem(row, 2, new QTableWidgetItem(QStringLiteral("0")));
    });
    connect(m_ui->removePriceButton, &QPushButton::clicked, this, [this] {
        if (m_ui->pricesTable->currentRow() >= 0)
            m_ui->pricesTable->removeRow(m_ui->pricesTable->currentRow());
    });
    connect(m_ui->buttonBox, &QDialogButtonBox::accepted, this, [this] {
        if (save())
            m_acceptWhenSaved = true; // closes once the engine has written the file
    });
    connect(m_ui->authCombo, &QComboBox::currentIndexChanged, this,
            [this](int index) { m_ui->authHeaderEdit->setEnabled(index == 1); });
    connect(m_ui->baseUrlEdit, &QLineEdit::textChanged, this, &ModelsDialog::updatePlainHttpWarning);
    connect(m_ui->keySourceCombo, &QComboBox::currentIndexChanged, this,
            &ModelsDialog::updatePlainHttpWarning);
    // Nothing to edit until the engine's answer: the endpoint's fields and Add wait for it.
    m_ui->addButton->setEnabled(false);
    showEndpoint(-1);
}

ModelsDialog::~ModelsDialog() = default;

void ModelsDialog::fill(const std::optional<LlmConfig> &config, const QString &error, const QStringList &read)
{
    m_loaded = true;
    m_ui->addButton->setEnabled(true);
    QStringList notes = read;
    if (config)
        m_config = *config;
    else
        notes << tr("%1\nSaving will replace it.").arg(error);
    for (const Endpoint &e : std::as_const(m_config.endpoints))
        if (e.sendsKeyInClear() && e.allowPlainHttpKey)
            notes << plainHttpWarningFor(e);
    setProblem(notes.join(u'\n'));
    loadRolesAndPrices();
    refreshList();
    showEndpoint(m_ui->endpointList->currentRow());
}

void ModelsDialog::saved(const QString &error)
{
    m_saveJob = 0;
    const bool accepting = std::exchange(m_acceptWhenSaved, false);
    if (!error.isEmpty()) {
        setProblem(error);
        Q_EMIT saveFinished(false);
        return;
    }
    // Saved; what is still incomplete (an unassigned role, say) is worth knowing but not worth refusing.
    const QStringList problems = m_config.problems();
    setProblem(problems.isEmpty() ? QString()
                                  : tr("Saved. Still to do: %1").arg(problems.join(QStringLiteral("; "))));
    Q_EMIT saveFinished(true);
    if (!accepting)
        return;
    // A typed key on its way to the keychain would be dropped with the dialog: close when it is kept.
    if (!m_keyJobs.isEmpty())
        m_acceptWhenKept = true;
    else
        accept();
}

void ModelsDialog::refreshList()
{
    m_loading = true;
    m_ui->endpointList->clear();
    for (const Endpoint &e : std::as_const(m_config.endpoints))
        m_ui->endpointList->addItem(e.name);
    m_loading = false;
    m_current = -1;
    m_ui->endpointList->setCurrentRow(m_config.endpoints.isEmpty() ? -1 : 0);
    if (m_config.endpoints.isEmpty())
        showEndpoint(-1);
}

void ModelsDialog::addEndpoint(const QString &presetId)
{
    if (!m_loaded)
        return; // the file's endpoints would replace it when they come
    storeEndpoint(m_current);
    const EndpointPreset *preset = EndpointPresets::find(presetId);
    Endpoint e = preset ? preset->endpoint : Endpoint{};
    QString name = preset ? preset->id : QStringLiteral("endpoint");
    for (int n = 2; m_config.endpoint(name); ++n)
        name = QStringLiteral("%1-%2").arg(preset ? preset->id : QStringLiteral("endpoint")).arg(n);
    e.name = name;
    m_config.endpoints.append(e);
    m_ui->endpointList->addItem(name);
    m_ui->endpointList->setCurrentRow(int(m_config.endpoints.size()) - 1);
}

void ModelsDialog::showEndpoint(int row)
{
    m_current = row;
    const bool valid = row >= 0 && row < m_config.endpoints.size();
    m_ui->tabs->widget(0)->findChild<QWidget *>(QStringLiteral("nameEdit"))->setEnabled(valid);
    for (QWidget *w : {static_cast<QWidget *>(m_ui->baseUrlEdit), static_cast<QWidget *>(m_ui->modelEdit),
                       static_cast<QWidget *>(m_ui->otherModelsEdit), static_cast<QWidget *>(m_ui->keyEdit),
                       static_cast<QWidget *>(m_ui->keySourceCombo), static_cast<QWidget *>(m_ui->keyEnvEdit),
                       static_cast<QWidget *>(m_ui->testButton), static_cast<QWidget *>(m_ui->removeButton)})
        w->setEnabled(valid);
    const Endpoint e = valid ? m_config.endpoints.at(row) : Endpoint{};
    m_loading = true;
    m_ui->nameEdit->setText(e.name);
    m_ui->baseUrlEdit->setText(e.baseUrl);
    m_ui->modelEdit->setText(e.model);
    m_ui->otherModelsEdit->setText(e.models.join(QStringLiteral(", ")));
    m_ui->keyEdit->clear(); // each endpoint's key is typed for it alone
    m_ui->keySourceCombo->setCurrentIndex(
        m_ui->keySourceCombo->findData(Endpoint::keySourceName(e.keySource)));
    m_ui->keyEnvEdit->setText(e.keyEnvVar);
    m_ui->storeKeyButton->setEnabled(false); // until a key is typed
    m_ui->authCombo->setCurrentIndex(e.authStyle == Endpoint::AuthStyle::Bearer ? 0 : 1);
    m_ui->authHeaderEdit->setText(e.authHeader);
    m_ui->authHeaderEdit->setEnabled(e.authStyle == Endpoint::AuthStyle::ApiKeyHeader);
    QStringList headers;
    for (const auto &[name, value] : e.extraHeaders)
        headers << name + QStringLiteral(": ") + value;
    m_ui->headersEdit->setPlainText(headers.join(u'\n'));
    m_ui->temperatureSpin->setValue(e.temperature.value_or(unsetTemperature));
    m_ui->topPSpin->setValue(e.topP.value_or(0.0));
    m_ui->maxTokensSpin->setValue(e.maxTokens.value_or(0));
    m_ui->reasoningCombo->setCurrentIndex(std::max(0, m_ui->reasoningCombo->findText(e.reasoningEffort)));
    m_ui->timeoutSpin->setValue(std::max(1, e.timeoutMs / 1000));
    m_ui->concurrencySpin->setValue(e.concurrency);
    const EndpointPreset *preset = EndpointPresets::find(e.preset);
    m_ui->presetNoteLabel->setText(preset ? preset->note : QString());
    m_ui->testResultLabel->clear();
    m_loading = false;
    updatePlainHttpWarning();
}

QString ModelsDialog::plainHttpWarningFor(const Endpoint &e)
{
    const QString host = QUrl(e.baseUrl.trimmed()).host();
    if (e.allowPlainHttpKey)
        return tr("Warning: endpoint '%1' sends its API key unencrypted over plain http:// to %2 "
                  "(\"allow_plain_http_key\" is set in llm.json): anyone on the network path can read it. "
                  "Use https:// unless the network to %2 is trusted.")
            .arg(e.name, host);
    return tr("Calls to '%1' are refused: its API key would travel unencrypted over plain http:// to %2, "
              "which is not this machine. Use https://, or, only if the network to it is trusted, set "
              "\"allow_plain_http_key\": true on the endpoint in llm.json.")
        .arg(e.name, host);
}

void ModelsDialog::updatePlainHttpWarning()
{
    // From the form as it stands, so the warning follows the base URL and key source as they are typed.
    Endpoint e = m_config.endpoints.value(m_current);
    if (m_current >= 0) {
        e.name = m_ui->nameEdit->text().trimmed();
        e.baseUrl = m_ui->baseUrlEdit->text();
        e.keySource = Endpoint::keySourceFromName(m_ui->keySourceCombo->currentData().toString());
    }
    const bool show = m_current >= 0 && e.sendsKeyInClear();
    m_ui->plainHttpWarningLabel->setText(show ? plainHttpWarningFor(e) : QString());
    m_ui->plainHttpWarningLabel->setVisible(show);
}

QString ModelsDialog::plainHttpWarning() const
{
    return m_ui->plainHttpWarningLabel->text();
}

QString ModelsDialog::problem() const
{
    return m_ui->problemLabel->text();
}

void ModelsDialog::storeEndpoint(int row)
{
    if (m_loading || row < 0 || row >= m_config.endpoints.size())
        return;
    Endpoint &e = m_config.endpoints[row];
    e.name = m_ui->nameEdit->text().trimmed();
    e.baseUrl = m_ui->baseUrlEdit->text().trimmed();
    e.model = m_ui->modelEdit->text().trimmed();
    e.models.clear();
    for (const QString &part : m_ui->otherModelsEdit->text().split(u',', Qt::SkipEmptyParts))
        if (const QString name = part.trimmed(); !name.isEmpty() && name != e.model && !e.models.contains(name))
            e.models << name;
    e.keySource = Endpoint::keySourceFromName(m_ui->keySourceCombo->currentData().toString());
    e.keyEnvVar = m_ui->keyEnvEdit->text().trimmed();
    e.authStyle = m_ui->authCombo->currentIndex() == 0 ? Endpoint::AuthStyle::Bearer
                                                       : Endpoint::AuthStyle::ApiKeyHeader;
    e.authHeader = m_ui->authHeaderEdit->text().trimmed();
    e.extraHeaders.clear();
    for (const QString &line : m_ui->headersEdit->toPlainText().split(u'\n', Qt::SkipEmptyParts)) {
        const qsizetype colon = line.indexOf(u':');
        if (colon > 0)
            e.extraHeaders.append({line.left(colon).trimmed(), line.mid(colon + 1).trimmed()});
    }
    const double t = m_ui->temperatureSpin->value();
    e.temperature = t <= unsetTemperature + 1e-9 ? std::nullopt : std::optional<double>(t);
    e.topP = m_ui->topPSpin->value() <= 0 ? std::nullopt : std::optional<double>(m_ui->topPSpin->value());
    e.maxTokens =
        m_ui->maxTokensSpin->value() <= 0 ? std::nullopt : std::optional<int>(m_ui->maxTokensSpin->value());
    e.reasoningEffort =
        m_ui->reasoningCombo->currentIndex() == 0 ? QString() : m_ui->reasoningCombo->currentText();
    e.timeoutMs = m_ui->timeoutSpin->value() * 1000;
    e.concurrency = m_ui->concurrencySpin->value();
}

void ModelsDialog::loadRolesAndPrices()
{
    m_ui->rolesTable->setRowCount(0);
    for (AgentRole role : AgentRoles::all()) {
        QList<ModelRoster::Member> members = m_config.roster.members(role);
        if (members.isEmpty())
            members << ModelRoster::Member{}; // listed, unassigned
        for (const ModelRoster::Member &m : std::as_const(members))
            addRoleRow(m_ui->rolesTable->rowCount(), role, m);
    }
    const QStringList models = m_config.prices.models();
    m_ui->pricesTable->setRowCount(int(models.size()));
    for (int i = 0; i < models.size(); ++i) {
        const auto p = m_config.prices.price(models.at(i));
        m_ui->pricesTable->setItem(i, 0, new QTableWidgetItem(models.at(i)));
        m_ui->pricesTable->setItem(i, 1, new QTableWidgetItem(QString::number(p->inputPerMillion)));
        m_ui->pricesTable->setItem(i, 2, new QTableWidgetItem(QString::number(p->outputPerMillion)));
    }
}

void ModelsDialog::addRoleRow(int row, AgentRole role, const ModelRoster::Member &member)
{
    QTableWidget *table = m_ui->rolesTable;
    table->insertRow(row);
    auto *name = new QTableWidgetItem(AgentRoles::name(role));
    name->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    table->setItem(row, RoleName, name);
    auto *endpoints = new QComboBox(table);
    auto *models = new QComboBox(table);
    auto *weight = new QDoubleSpinBox(table);
    endpoints->setObjectName(QStringLiteral("roleEndpoint"));
    models->setObjectName(QStringLiteral("roleModel"));
    weight->setRange(0, 1000);
    weight->setDecimals(2);
    weight->setValue(member.weight);
    weight->setToolTip(tr("How often this model is picked, relative to the role's others"));
    fillEndpointChoices(endpoints, member.endpoint);
    fillModelChoices(models, member.endpoint, member.model);
    connect(endpoints, &QComboBox::currentIndexChanged, models, [this, endpoints, models] {
        fillModelChoices(models, endpoints->currentData().toString(), QString());
    });
    table->setCellWidget(row, RoleEndpoint, endpoints);
    table->setCellWidget(row, RoleModel, models);
    table->setCellWidget(row, RoleWeight, weight);
}

void ModelsDialog::fillEndpointChoices(QComboBox *endpoints, const QString &chosen) const
{
    const QSignalBlocker quiet(endpoints);
    endpoints->clear();
    endpoints->addItem(tr("(none)"), QString());
    for (const Endpoint &e : m_config.endpoints)
        endpoints->addItem(e.name, e.name);
    int at = endpoints->findData(chosen);
    if (at < 0) { // from a file, naming an endpoint that is gone: shown as such, and refused on save
        endpoints->addItem(tr("%1 (does not exist)").arg(chosen), chosen);
        at = endpoints->count() - 1;
    }
    endpoints->setCurrentIndex(at);
}

void ModelsDialog::fillModelChoices(QComboBox *models, const QString &endpoint, const QString &chosen) const
{
    const QSignalBlocker quiet(models);
    models->clear();
    const Endpoint *e = m_config.endpoint(endpoint);
    if (!e) {
        models->setEnabled(false);
        return;
    }
    models->setEnabled(true);
    // The default model is stored as no model: the role follows the endpoint when its default changes.
    const QStringList served = e->servedModels();
    for (const QString &m : served)
        models->addItem(m == e->model ? tr("%1 (default)").arg(m) : m, m == e->model ? QString() : m);
    if (served.isEmpty())
        models->addItem(tr("(no model set)"), QString());
    int at = chosen.isEmpty() || chosen == e->model ? 0 : models->findData(chosen);
    if (at < 0) {
        models->addItem(tr("%1 (not served)").arg(chosen), chosen);
        at = models->count() - 1;
    }
    models->setCurrentIndex(at);
}

void ModelsDialog::refreshRoleChoices()
{
    for (int row = 0; row < m_ui->rolesTable->rowCount(); ++row) {
        auto *endpoints = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleEndpoint));
        auto *models = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleModel));
        const QString endpoint = endpoints->currentData().toString();
        const QString model = models->currentData().toString();
        fillEndpointChoices(endpoints, endpoint);
        fillModelChoices(models, endpoint, model);
    }
}

bool ModelsDialog::collectRolesAndPrices(QString *error)
{
    QMap<QString, QList<ModelRoster::Member>> chosen;
    for (int row = 0; row < m_ui->rolesTable->rowCount(); ++row) {
        const auto *endpoints = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleEndpoint));
        const auto *models = qobject_cast<QComboBox *>(m_ui->rolesTable->cellWidget(row, RoleModel));
        const auto *weight = qobject_cast<QDoubleSpinBox *>(m_ui->rolesTable->cellWidget(row, RoleWeight));
        const QString endpoint = endpoints->currentData().toString();
        const QString model = models->currentData().toString();
        const QString role = m_ui->rolesTable->item(row, RoleName)->text();
        if (endpoint.isEmpty())
            continue;
        // Only what exists: a name left from an older file would fail the search's first call.
        const Endpoint *e = m_config.endpoint(endpoint);
        if (!e) {
            *error = tr("the %1 uses endpoint '%2', which does not exist: choose one on the Roles tab")
                         .arg(role, endpoint);
            return false;
        }
        if (!model.isEmpty() && !e->servedModels().contains(model)) {
            *error = tr("the %1 uses model '%2', which endpoint '%3' does not list: add it to the endpoint's "
                        "models or choose another")
                         .arg(role, model, endpoint);
            return false;
        }
        chosen[role].append({endpoint, weight->value(), model});
    }
    for (AgentRole role : AgentRoles::all())
        m_config.roster.assign(role, chosen.value(AgentRoles::name(role)));
    PriceTable prices;
    for (int row = 0; row < m_ui->pricesTable->rowCount(); ++row) {
        auto text = [&](int column) {
            const QTableWidgetItem *item = m_ui->pricesTable->item(row, column);
            return item ? item->text().trimmed() : QString();
        };
        if (text(0).isEmpty())
            continue;
        bool okIn = false, okOut = false;
        const double in = text(1).toDouble(&okIn), out = text(2).toDouble(&okOut);
        if (!okIn || !okOut || in < 0 || out < 0) {
            *error = tr("the price of %1 must be two numbers ≥ 0").arg(text(0));
            return false;
        }
        prices.set(text(0), {in, out});
    }
    m_config.prices = prices;
    return true;
}

bool ModelsDialog::save()
{
    if (!m_loaded || m_saveJob != 0) {
        setProblem(tr("llm.json is still being read or saved; try again in a moment."));
        return false;
    }
    storeEndpoint(m_current);
    if (!m_ui->keyEdit->text().trimmed().isEmpty())
        keepTypedKey(); // typed and not yet kept: OK means keep it
    QString error;
    if (!collectRolesAndPrices(&error)) {
        setProblem(error);
        return false;
    }
    QSet<QString> names; // a list scan per endpoint was quadratic in a large llm.json
    for (const Endpoint &e : std::as_const(m_config.endpoints)) {
        if (e.name.isEmpty() || names.contains(e.name)) {
            setProblem(tr("every endpoint needs a name of its own ('%1')").arg(e.name));
            return false;
        }
        names.insert(e.name);
    }
    setProblem(tr("Saving…"));
    m_saveJob = m_context->saveLlmConfig(m_config);
    return true;
}

void ModelsDialog::setProblem(const QString &text)
{
    m_ui->problemLabel->setText(text);
}

void ModelsDialog::keepTypedKey()
{
    storeEndpoint(m_current);
    const QString key = m_ui->keyEdit->text().trimmed();
    m_ui->keyEdit->clear(); // out of the widget at once: it lives on only where it is kept
    if (m_current < 0 || key.isEmpty())
        return;
    // A typed key is looked up where keys are kept: the keychain, else this session's memory.
    Endpoint &stored = m_config.endpoints[m_current];
    if (stored.keySource != Endpoint::KeySource::Keychain) {
        stored.keySource = Endpoint::KeySource::Keychain;
        m_loading = true;
        m_ui->keySourceCombo->setCurrentIndex(
            m_ui->keySourceCombo->findData(Endpoint::keySourceName(Endpoint::KeySource::Keychain)));
        m_loading = false;
        updatePlainHttpWarning();
    }
    m_ui->testResultLabel->setText(tr("Keeping the key…"));
    m_keyJobs.insert(m_context->keepKey(stored, key));
}

void ModelsDialog::testCurrentEndpoint()
{
    storeEndpoint(m_current);
    if (m_current < 0)
        return;
    const Endpoint e = m_config.endpoints.at(m_current);
    m_ui->testResultLabel->setText(tr("Testing %1…").arg(e.name));
    m_testJob = m_context->testEndpoint(e, m_config.retry); // cancels a test still running
}

void ModelsDialog::showTest(bool keyFound, const QString &note, const ChatReply &r)
{
    if (!keyFound) {
        m_ui->testResultLabel->setText(tr("Failed: %1").arg(note));
        Q_EMIT testFinished(false);
        return;
    }
    if (!r.ok()) {
        m_ui->testResultLabel->setText(tr("Failed after %1 ms: %2").arg(r.latencyMs).arg(r.errorText));
    } else {
        const QString tokens = r.usage
                                   ? tr("%1 in / %2 out").arg(r.usage->inputTokens).arg(r.usage->outputTokens)
                                   : tr("unknown");
        m_ui->testResultLabel->setText(tr("OK in %1 ms, tokens %2. Reply: %3%4")
                                           .arg(r.latencyMs)
                                           .arg(tokens, r.content.trimmed().section(u'\n', 0, 0).left(120),
                                                note.isEmpty() ? QString() : QStringLiteral("\n") + note));
    }
    Q_EMIT testFinished(r.ok());
}

QString ModelsDialog::testResult() const
{
    return m_ui->testResultLabel->text();
}
