output "role_arn" {
  description = "ENGRAM_FC_ROLE_ARN for s.yaml."
  value       = alicloud_ram_role.functions.arn
}

output "bucket" {
  description = "ENGRAM_BUCKET for s.yaml."
  value       = alicloud_oss_bucket.tenants.bucket
}

output "oss_internal_endpoint" {
  description = "ENGRAM_OSS_ENDPOINT for s.yaml (the functions reach OSS over the region's internal network)."
  value       = "https://${alicloud_oss_bucket.tenants.intranet_endpoint}"
}

output "image_repository" {
  description = "Push the image here; ENGRAM_IMAGE is this plus a tag."
  value       = "registry.${var.region}.aliyuncs.com/${alicloud_cr_namespace.engram.name}/${alicloud_cr_repo.engram.name}"
}
