# Cloud resources of the Engram deployment. Terraform owns the bucket, the image
# registry and the functions' RAM role; ../s.yaml (Serverless Devs) owns the
# three functions and their triggers, and takes the values of outputs.tf.

data "alicloud_account" "current" {}

locals {
  tenant_prefix = "${var.prefix}/"
  config_prefix = "${var.prefix}-config/"
}

# -- OSS: one bucket, private, never versioned --------------------------------------
# Versioning stays off: OSS ignores x-oss-forbid-overwrite on versioned buckets,
# and create-only generations are what make concurrent commits safe.
resource "alicloud_oss_bucket" "tenants" {
  bucket        = var.bucket_name
  storage_class = "Standard"

  server_side_encryption_rule {
    sse_algorithm = "AES256"
  }

  # Crashed uploads leave no parts behind.
  lifecycle_rule {
    id      = "abort-incomplete-uploads"
    prefix  = local.tenant_prefix
    enabled = true

    abort_multipart_upload {
      days = 1
    }
  }

  # Old generations (the newest K and the grace window that garbage collection
  # keeps, and the only generation of a dormant tenant) get cheaper storage.
  # Deleting superseded generations is the snapshot GC's job: age alone cannot
  # tell a superseded generation from a dormant tenant's newest one.
  lifecycle_rule {
    id      = "old-generations-to-ia"
    prefix  = local.tenant_prefix
    enabled = true

    transitions {
      days          = var.cold_after_days
      storage_class = "IA"
    }
  }

  lifecycle {
    prevent_destroy = true
  }
}

resource "alicloud_oss_bucket_acl" "tenants" {
  bucket = alicloud_oss_bucket.tenants.bucket
  acl    = "private"
}

# -- Container Registry (personal edition): the custom-container image -------------
resource "alicloud_cr_namespace" "engram" {
  name               = var.acr_namespace
  auto_create        = false
  default_visibility = "PRIVATE"
}

resource "alicloud_cr_repo" "engram" {
  namespace = alicloud_cr_namespace.engram.name
  name      = var.acr_repository
  summary   = "Engram Function Compute image (chat, memories, consolidate)"
  repo_type = "PRIVATE"
}

# -- RAM: the role the functions assume, limited to the bucket prefix ----------------
resource "alicloud_ram_role" "functions" {
  role_name                   = var.role_name
  description                 = "Engram functions: tenant snapshots in OSS, async sleep jobs, logs."
  assume_role_policy_document = file("${path.module}/policies/assume-role.json")
}

resource "alicloud_ram_policy" "functions" {
  policy_name = "${var.role_name}-least-privilege"
  description = "Only the tenant prefix and the keys file of one bucket, and one function to invoke."
  policy_document = templatefile("${path.module}/policies/functions.json.tftpl", {
    bucket         = var.bucket_name
    tenant_prefix  = local.tenant_prefix
    config_prefix  = local.config_prefix
    region         = var.region
    account_id     = data.alicloud_account.current.id
    sleep_function = var.sleep_function_name
  })
}

resource "alicloud_ram_role_policy_attachment" "functions" {
  role_name   = alicloud_ram_role.functions.role_name
  policy_name = alicloud_ram_policy.functions.policy_name
  policy_type = "Custom"
}
